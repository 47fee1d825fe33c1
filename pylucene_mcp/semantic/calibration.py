"""The similarity threshold a model's own scale asks for (docs/semantic.md, "The threshold").

Models spread cosine similarities differently: all-MiniLM-L6-v2 puts unrelated texts near 0 and a
passage that answers a question near 0.5; the e5 family puts unrelated texts near 0.75. A fixed
threshold found nothing with one (0.7: 0 hits for 10 of 10 questions) and everything with
another. So a model measures its own: :data:`PAIRS` are questions, each with a passage that
answers it in other words, on topics far apart; every question against every other question's
passage is an unrelated pair, and the threshold is the similarity that :data:`QUANTILE` of those
unrelated pairs stay below. A document then has to be closer to the query than almost any
unrelated text is, whatever the model's scale.
"""

from __future__ import annotations

import math

import numpy as np

from pylucene_mcp.semantic.chunks import chunks
from pylucene_mcp.semantic.encoder import Encoder

#: the share of unrelated question-passage pairs below the threshold: all-MiniLM-L6-v2 gets
#: 0.20, below each related pair (0.27 to 0.67); at 0.99 it got 0.33, pushed up by the German
#: pairs, which an English model reads alike (0.29 on average between unrelated ones)
QUANTILE = 0.95

#: questions and a passage answering each in other words, in English and German, on topics
#: that share nothing
PAIRS: tuple[tuple[str, str], ...] = (
    ("how long should bread dough rest before baking",
     "Leave the kneaded loaf covered in a warm place for an hour until it has doubled, then put "
     "it in the oven."),
    ("what to do when the river floods the village",
     "After heavy rain the water rose over the banks; residents moved to higher ground and "
     "sandbags were stacked along the streets."),
    ("notice period for ending an apartment rental",
     "The tenant may terminate the lease with three months' written notice to the landlord."),
    ("symptoms of a cold in children",
     "A runny nose, a mild fever and a cough are common when a young child catches a virus in "
     "winter."),
    ("how a compiler turns code into a program",
     "The translator reads source text, builds a syntax tree and emits machine instructions for "
     "the processor."),
    ("best time to plant tomatoes",
     "Seedlings go outdoors after the last frost, once nights stay above ten degrees."),
    ("how to reset a forgotten email password",
     "Open the sign-in page, choose the recovery link and follow the code sent to your phone to "
     "set a new secret."),
    ("tax deduction for working from home",
     "Employees may claim part of their rent and electricity as expenses when a room is used "
     "only for their job."),
    ("why do leaves change colour in autumn",
     "As days shorten, trees stop producing chlorophyll and the yellow and red pigments beneath "
     "become visible."),
    ("train delays compensation",
     "Passengers whose journey arrives more than an hour late can claim back a quarter of the "
     "ticket price."),
    ("how vaccines protect against disease",
     "An injection trains the immune system to recognise a pathogen so it can fight off a later "
     "infection."),
    ("minutes of the budget meeting",
     "The committee approved next year's spending plan and postponed the decision on new hires."),
    ("how to care for a puppy",
     "Feed a young dog small meals several times a day, take it outside often and start gentle "
     "training early."),
    ("sorting a list of numbers quickly",
     "Quicksort partitions the array around a pivot and recursively orders both halves in n log "
     "n time on average."),
    ("salary and holidays in my employment contract",
     "The employee receives a monthly gross pay of 4,000 euros and twenty-eight days of paid "
     "leave a year."),
    ("how earthquakes happen",
     "Tectonic plates grind against each other until stress is released as shaking of the "
     "ground."),
    ("recipe for lentil soup",
     "Simmer red lentils with onion, carrot and cumin in stock for twenty minutes, then blend."),
    ("backing up files to an external disk",
     "Copy your documents to a USB drive every week so that a broken laptop does not lose them."),
    ("how solar panels make electricity",
     "Photovoltaic cells turn sunlight into direct current, which an inverter changes for the "
     "household grid."),
    ("the history of the printing press",
     "Gutenberg's movable metal type in the fifteenth century made books cheap and spread "
     "literacy across Europe."),
    ("marathon training plan",
     "Runners build weekly mileage slowly, add one long run each weekend and taper before race "
     "day."),
    ("how to file an insurance claim after a car accident",
     "Report the collision to your insurer within a week, with photos, the police report and "
     "the other driver's details."),
    ("Wie lange gilt die Garantie für eine Waschmaschine?",
     "Der Hersteller repariert Defekte des Geräts in den ersten zwei Jahren nach dem Kauf "
     "kostenlos."),
    ("Kündigungsfrist im Arbeitsvertrag",
     "Das Beschäftigungsverhältnis kann von beiden Seiten mit einer Frist von vier Wochen zum "
     "Monatsende beendet werden."),
    ("Wann muss ich meine Steuererklärung abgeben?",
     "Wer zur Abgabe verpflichtet ist, reicht die Unterlagen beim Finanzamt bis Ende Juli des "
     "Folgejahres ein."),
    ("Wie pflege ich Zimmerpflanzen im Winter?",
     "Grüne Gewächse in der Wohnung brauchen in der dunklen Jahreszeit weniger Wasser und einen "
     "hellen Platz fern der Heizung."),
    ("Anreise mit der Bahn zum Hotel",
     "Vom Hauptbahnhof fährt die Straßenbahn Linie 4 in zehn Minuten bis zur Haltestelle vor "
     "dem Eingang."),
    ("Was kostet die Reparatur des Daches?",
     "Für das Decken der beschädigten Ziegel veranschlagt der Handwerksbetrieb rund 3.000 Euro "
     "inklusive Gerüst."),
)  # fmt: skip


def similarities(encoder: Encoder) -> np.ndarray:
    """Each question of :data:`PAIRS` (a row, embedded as a query) against each passage (a
    column, embedded as a document's text is): the related pairs on the diagonal."""
    questions = np.array([encoder.embed(question) for question, _ in PAIRS])
    passages = np.array([chunks(encoder, passage, "plain")[0].vector for _, passage in PAIRS])
    found: np.ndarray = questions @ passages.T
    return found


def threshold(encoder: Encoder) -> float:
    """The least similarity of a semantic search's documents for the model of ``encoder``: the
    :data:`QUANTILE` of the unrelated pairs' similarities, rounded down to two decimals."""
    found = similarities(encoder)
    unrelated = found[~np.eye(len(PAIRS), dtype=bool)]
    return math.floor(float(np.quantile(unrelated, QUANTILE)) * 100) / 100
