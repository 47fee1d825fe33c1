"""The basics every layer may use: schema, settings, errors, logging, result
shapes, and what differs between platforms. No Java here.
"""
