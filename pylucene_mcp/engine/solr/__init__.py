"""The SolrCloud backend (docs/scale-out.md): a collection on a cluster as a
:class:`~pylucene_mcp.engine.core.backend.Backend`, the configset and ``solr init``, and the jars a
node needs for the product's plugin. The service layer builds it from the settings through this
module alone."""

from __future__ import annotations

from pathlib import Path

from pylucene_mcp.engine.solr.backend import SolrBackend
from pylucene_mcp.engine.solr.client import SolrClient, SolrSettings
from pylucene_mcp.engine.solr.configset import Health, InitReport, health, init

__all__ = [
    "Health",
    "InitReport",
    "SolrBackend",
    "SolrClient",
    "SolrSettings",
    "health",
    "init",
    "plugin_jars",
]

#: the jars beside the plugin that a node needs: the lemma filter's Morfologik and dictionaries
PLUGIN_NEEDS = ("morfologik-fsa-", "morfologik-stemming-", "english-pos-dict-", "german-pos-dict-")


def plugin_jars(jars: Path) -> list[Path]:
    """The jars to put on every Solr node's class path (its ``lib`` folder), from the package's
    jar folder ``jars``: the product's plugin, then what it needs. Solr's own ``analysis-extras``
    module gives the ICU factories (docs/scale-out.md)."""
    found = [jars / "solr" / "pylucene-mcp-solr.jar"]
    for prefix in PLUGIN_NEEDS:
        found += sorted(jars.glob(f"{prefix}*.jar"))
    return found
