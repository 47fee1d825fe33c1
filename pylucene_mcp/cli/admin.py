"""``stats``, ``doctor``, ``optimize``, ``purge``, ``solr``, ``token`` and ``unlock``: the
index and the installation looked after from the command line."""

from __future__ import annotations

import argparse
import json
import sys

from pylucene_mcp.basics import errors
from pylucene_mcp.basics.config import Settings
from pylucene_mcp.cli.common import ask_server, settings_of


def stats(args: argparse.Namespace) -> int:
    from pylucene_mcp.basics.shapes import to_dict
    from pylucene_mcp.service.service import open_backend

    settings = settings_of(args)
    stats = ask_server(settings, "getIndexStats", {})
    if stats is None:
        index = open_backend(settings, read_only=True)
        try:
            stats = to_dict(index.index_stats())
        finally:
            index.close()
    print(json.dumps(stats, indent=2))
    return 0


def doctor(args: argparse.Namespace) -> int:
    from pylucene_mcp import doctor

    return doctor.main(as_json=args.json, fetch_tika=args.fetch_tika)


def optimize(args: argparse.Namespace) -> int:
    from pylucene_mcp.service.service import open_backend

    index = open_backend(settings_of(args), create=False)
    try:
        segments = index.optimize(args.max_segments)
        print(f"{len(index)} documents in {segments} segment(s)")
    finally:
        index.close()
    return 0


def purge(args: argparse.Namespace) -> int:
    from pylucene_mcp.service.places import place
    from pylucene_mcp.service.service import open_backend

    if not args.yes:
        raise errors.InvalidRequestError(
            "purge deletes every document of the index: run it again with --yes"
        )
    settings = settings_of(args)
    if args.full:  # emptied without a writer: a corrupt index cannot be opened for one
        where = place(settings)
        count = where.documents()
        gone = (
            f"deleted {count} documents"
            if count is not None
            else ("removed an index that could not be read")
        )
        where.clear()
        print(f"{gone}; {where.location} recreated empty")
        return 0
    index = open_backend(settings, create=False)
    try:
        deleted = index.purge()
    finally:
        index.close()
    print(f"deleted {deleted} documents")
    return 0


def solr(args: argparse.Namespace) -> int:
    from pylucene_mcp.service.places import Collection

    if args.solr_command == "plugin":
        for jar in Collection.plugin_jars():
            print(jar)
        return 0
    print(Collection(settings_of(args)).init(args.shards, args.replicas))
    return 0


def token(args: argparse.Namespace) -> int:
    from pylucene_mcp.basics.config import comma_list, home_dir
    from pylucene_mcp.server.auth import add_static_token

    path = args.file or Settings.load().tokens_file or home_dir() / "tokens.yaml"
    names, groups = comma_list(args.scopes), comma_list(args.groups)
    made = add_static_token(path, args.subject, names, groups, args.days)
    print(made)
    print(
        f"a token for {args.subject} ({', '.join(names)}), good for {args.days:g} days: give it "
        f"to them now, it is not kept (its SHA-256 is in {path}); serve with tokens_file set to "
        "that file",
        file=sys.stderr,
    )
    return 0


def unlock(args: argparse.Namespace) -> int:
    from pylucene_mcp.service.places import place

    print(place(settings_of(args)).unlock()[1])
    return 0
