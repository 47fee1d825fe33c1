"""The lemmatizers compared for the lemma fields (docs/relevance.md): OpenNLP's part-of-speech
tagger and statistical lemmatizer (models from Maven Central) against Morfologik's lookup in
LanguageTool's English and German dictionaries, which the product uses.

Quality: the share of word forms in real sentences (bench/lemmatizers/en.tsv, de.tsv) whose
lemma each finds. Cost: tokens per second over the CACM abstracts, after the standard tokenizer.
Gradle fetches OpenNLP for this bench only (build.gradle: lemmatizerClasspath).

    python bench/lemmatizers.py [--cacm PATH]
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
from pathlib import Path

from _common import ROOT, cacm_pages

from pylucene_mcp import jvm

HERE = ROOT / "bench" / "lemmatizers"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cacm", type=Path, default=ROOT.parent / "shared/eval/cacm")
    args = parser.parse_args()
    subprocess.run(["gradle", "--no-daemon", "-q", "lemmatizerClasspath"], cwd=ROOT, check=True)
    class_path = (ROOT / "build" / "lemmatizers.classpath").read_text().strip()
    java = str(jvm.find_java_home() / "bin" / "java")
    with tempfile.TemporaryDirectory() as work:
        corpus = Path(work) / "cacm.txt"
        corpus.write_text(
            "\n".join(" ".join(lines) for _, _, lines in cacm_pages(args.cacm / "cacm.tar.gz"))
        )
        for language, text in (("en", [str(corpus)]), ("de", [])):
            subprocess.run(
                [
                    java,
                    "-cp",
                    class_path,
                    str(HERE / "CompareLemmatizers.java"),
                    language,
                    str(HERE / f"{language}.tsv"),
                    *text,
                ],
                check=True,
            )


if __name__ == "__main__":
    main()
