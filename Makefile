# pylucene-mcp: `make serve` builds what is missing and runs the MCP server; `make test` tests.
PYTHON ?= python3
GRADLE ?= gradle
GRADLE_FLAGS ?= --no-daemon -q
SETUP_STAMP := .setup.stamp
SERVE_STAMP := .serve.stamp
# every jar (the product's, the Tika pipe, the Solr plugin), and those serving needs
JAR_STAMP := pylucene_mcp/jars/solr/pylucene-mcp-solr.jar
PRODUCT_JARS := pylucene_mcp/jars/pylucene-mcp-shims.jar
JAVA_SOURCES := $(shell find shims -name '*.java' 2>/dev/null) build.gradle settings.gradle
PRODUCT_SOURCES := $(shell find shims -name '*.java' -not -path 'shims/solr/*' 2>/dev/null) build.gradle settings.gradle

.PHONY: help setup jars solr-node solr-cluster dist test test-python test-java java-format test-install lint typecheck bench serve clean

help:  ## list the targets
	@grep -E '^[a-z-]+:.*##' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

# The recipes on the way to `serve` are silent and write to stderr: stdout belongs to MCP.
$(SETUP_STAMP): pyproject.toml
	@$(PYTHON) -m pip install -q -e '.[dev]' >&2
	@touch $@

setup: $(SETUP_STAMP) jars  ## install the package (editable, with dev tools) and build the jars

# serving needs the package and its dependencies, not the dev tools
$(SERVE_STAMP): pyproject.toml
	@$(PYTHON) -m pip install -q -e . >&2
	@touch $@

$(JAR_STAMP): $(JAVA_SOURCES)
	@./scripts/ensure-gradle >&2
	@$(GRADLE) $(GRADLE_FLAGS) jars >&2
	@touch $@

jars: $(JAR_STAMP)  ## fetch Lucene from Maven Central and compile the Java shims into jars/

$(PRODUCT_JARS): $(PRODUCT_SOURCES)
	@./scripts/ensure-gradle >&2
	@$(GRADLE) $(GRADLE_FLAGS) productJars >&2
	@touch $@

SOLR_NODE := build/solr-node.classpath
$(SOLR_NODE): $(JAVA_SOURCES) $(shell find shims/solr -name '*.java' 2>/dev/null)
	@./scripts/ensure-gradle >&2
	@$(GRADLE) $(GRADLE_FLAGS) solrNode >&2

solr-node: $(SOLR_NODE)  ## Solr 9 from Maven Central and the product's Solr plugin (the SolrCloud backend's nodes)

solr-cluster: $(SETUP_STAMP) $(SOLR_NODE)  ## a local 2-node SolrCloud to try the Solr backend on (Ctrl-C stops it)
	$(PYTHON) -m tests.solr_cluster 2

dist: $(JAR_STAMP)  ## the sdist and the wheel, jars included, into dist/ (needs only Python and pip)
	$(PYTHON) -P scripts/dist.py --outdir dist >&2

test-java: $(JAR_STAMP)  ## the shims' format and forbidden APIs, then their JUnit tests (Gradle)
	$(GRADLE) $(GRADLE_FLAGS) javaCheck junit

java-format: $(JAR_STAMP)  ## rewrite the Java sources in google-java-format's style
	$(GRADLE) $(GRADLE_FLAGS) javaFormat

test-python: $(SETUP_STAMP) $(JAR_STAMP) $(SOLR_NODE)  ## pytest, slow tests included (a plain `pytest` skips them)
	@./scripts/ensure-chromium >&2 || echo "no chromium: the MCP Apps browser tests will be skipped" >&2
	@./scripts/ensure-apps-host >&2 || echo "no npm: the MCP Apps browser tests will be skipped" >&2
	@./scripts/ensure-test-corpora >&2 || echo "no German corpus: the exactness test will be skipped" >&2
	@./scripts/ensure-tesseract >&2 || echo "no tesseract: the OCR tests will be skipped" >&2
	@./scripts/ensure-test-model >&2
	$(PYTHON) -m pytest -m "slow or not slow"

# the check writes real Word files with the dev tools: after `make serve`, which installs the
# package without them, `make test` installs them first
test-install: $(SETUP_STAMP) dist  ## the wheel in a fresh virtualenv with no system Java: version, doctor, crawl, serve
	$(PYTHON) scripts/check_install.py dist/pylucene_mcp-*.whl

test: test-java test-install test-python  ## JUnit, the installed wheel, pytest

lint: $(SETUP_STAMP)  ## ruff
	$(PYTHON) -m ruff check pylucene_mcp tests bench scripts
	$(PYTHON) -m ruff format --check pylucene_mcp tests bench scripts

typecheck: $(SETUP_STAMP)  ## mypy --strict on the package
	$(PYTHON) -m mypy

bench: $(SETUP_STAMP) $(JAR_STAMP) $(SOLR_NODE)  ## the benchmarks of bench/README.md (prints figures; long)
	@./scripts/ensure-bench-corpora
	@./scripts/ensure-tesseract
	$(PYTHON) bench/startup.py
	$(PYTHON) bench/search_latency.py
	$(PYTHON) bench/memory.py
	$(PYTHON) bench/boundary.py
	$(PYTHON) bench/profile_latency.py
	$(PYTHON) bench/research_indexing.py
	$(PYTHON) bench/indexing.py
	$(PYTHON) bench/relevance.py
	$(PYTHON) bench/known_item.py
	$(PYTHON) bench/file_names.py
	$(PYTHON) bench/lemmatizers.py
	$(PYTHON) bench/crawl.py
	$(PYTHON) bench/ocr.py
	$(PYTHON) bench/scale.py
	$(PYTHON) bench/pattern_cost.py
	$(PYTHON) bench/passage_cost.py
	$(PYTHON) bench/pyserini.py
	$(PYTHON) bench/solr.py
	$(PYTHON) bench/fuzz_stdio.py
	$(PYTHON) bench/shutdown.py

serve: $(SERVE_STAMP) $(PRODUCT_JARS)  ## run the MCP server on stdio (index: ~/.pylucene-mcp/index)
	@$(PYTHON) -m pylucene_mcp serve

clean:  ## remove build outputs
	rm -rf jars pylucene_mcp/jars dist build .build-tools .gradle $(SETUP_STAMP) $(SERVE_STAMP) .pytest_cache .mypy_cache .ruff_cache
