"""Answer metrics exactly as the published LoCoMo results compute them, written out here so
nothing is downloaded at run time.

F1 compares token *sets*: lowercase, `. , ! ?` become spaces, split on whitespace. Repeating a
word neither helps nor hurts, and other punctuation stays attached to its word ("may," and
"may" differ only through the comma rule, "tuesday;" and "tuesday" always differ).

BLEU-1 is NLTK's `sentence_bleu(weights=(1, 0, 0, 0), smoothing_function=method1)` on NLTK's
`word_tokenize` of the lowercased texts: clipped unigram precision times the brevity penalty.
Smoothing only touches n-gram orders whose weight is zero here, so it never changes the score;
it is kept so the function matches that definition for any weights.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Sequence

_F1_PUNCT = str.maketrans({".": " ", ",": " ", "!": " ", "?": " "})
EPSILON = 0.1    # NLTK SmoothingFunction.method1's epsilon


def f1_tokens(text: str) -> set[str]:
    return set(str(text).lower().translate(_F1_PUNCT).split())


def f1(prediction: str, reference: str) -> float:
    """Set-based token F1; 0 when either side is empty."""
    if not str(prediction).strip() or not str(reference).strip():
        return 0.0
    pred, ref = f1_tokens(prediction), f1_tokens(reference)
    if not pred or not ref:
        return 0.0
    common = len(pred & ref)
    if common == 0:
        return 0.0
    precision, recall = common / len(pred), common / len(ref)
    return 2 * precision * recall / (precision + recall)


# -- word_tokenize -------------------------------------------------------------------------------
# NLTK first splits the text into sentences (Punkt), then applies its Treebank-style rules to
# each. The sentence split only matters for periods: the word rules detach a period only at the
# end of a sentence. Punkt's trained model is approximated by its decisive rules for lowercased
# text: a word ending in "." ends a sentence unless it is a known abbreviation, a single-letter
# initial or a number (a lowercase word after those is taken as a continuation).

# The abbreviations of Punkt's English model (lowercase, without the final period).
_ABBREVIATIONS = frozenset("""a.a a.c a.d a.g a.h a.m a.m.e a.s a.t adm ala ariz aug ave b.f b.v
bros c c.i.t c.o.m.b c.v calif chg cie co col colo conn corp cos ct d d.c d.h d.w dec dr e e.f e.h
e.l e.m f f.g f.j feb fla fri ft g g.d g.f g.k ga gen h h.c h.f h.m i.m.s ill inc j.b j.c j.j j.k
j.p j.r jan jr k kan ky l l.a l.f l.p lt ltd m m.b.a m.d.c m.j maj messrs mg mich minn mr mrs ms n
n.c n.d n.h n.j n.m n.v n.y nev nov oct ok okla ore p p.a.m p.m pa ph.d prof r r.a r.h r.i r.j r.k
r.t rep reps s s.a s.a.y s.c s.g s.p.a s.s sen sep sept sr st sw t t.j tenn tues u.k u.n u.s u.s.a
u.s.s.r v va vs vt w w.c w.r w.va w.w wash wed wis yr""".split())
_SENT_END = re.compile(r"""(\S*[.?!]['")\]]*)\s+""")

_STARTING_QUOTES = [
    (re.compile(r"([«“‘„]|[`]+)"), r" \1 "),
    (re.compile(r'^"'), "``"),
    (re.compile(r"(``)"), r" \1 "),
    (re.compile(r"""([ ([{<])("|'{2})"""), r"\1 `` "),
    (re.compile(r"(?i)(?<!\w)(')(?!(?:re|ve|ll|m|t|s|d|n)\b)(?=\w)"), r"\1 "),
]
_PUNCTUATION = [
    (re.compile(r"""([^.])(\.)([\]\)}>"'»”’ ]*)\s*$"""), r"\1 \2 \3 "),
    (re.compile(r"([:,])([^\d])"), r" \1 \2"),
    (re.compile(r"([:,])$"), r" \1 "),
    (re.compile(r"\.{2,}"), r" \g<0> "),
    (re.compile(r"[;@#$%&]"), r" \g<0> "),
    (re.compile(r"[\u2012-\u2015]"), r" \g<0> "),
    (re.compile(r"""([^.])(\.)([\]\)}>"']*)\s*$"""), r"\1 \2\3 "),
    (re.compile(r"[?!]"), r" \g<0> "),
    (re.compile(r"([^'])' "), r"\1 ' "),
    (re.compile(r"[*]"), r" \g<0> "),
]
_BRACKETS = (re.compile(r"[\]\[\(\)\{\}\<\>]"), r" \g<0> ")
_DOUBLE_DASH = (re.compile(r"--"), r" -- ")
_ENDING_QUOTES = [
    (re.compile(r"([»”’])"), r" \1 "),
    (re.compile(r"''"), " '' "),
    (re.compile(r'"'), " '' "),
    (re.compile(r"\s+"), " "),
    (re.compile(r"([^' ])('[sS]|'[mM]|'[dD]|') "), r"\1 \2 "),
    (re.compile(r"([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) "), r"\1 \2 "),
]
_CONTRACTIONS = [re.compile(p) for p in (
    r"(?i)\b(can)(?#X)(not)\b", r"(?i)\b(d)(?#X)('ye)\b", r"(?i)\b(gim)(?#X)(me)\b",
    r"(?i)\b(gon)(?#X)(na)\b", r"(?i)\b(got)(?#X)(ta)\b", r"(?i)\b(lem)(?#X)(me)\b",
    r"(?i)\b(more)(?#X)('n)\b", r"(?i)\b(wan)(?#X)(na)(?=\s)",
    r"(?i) ('t)(?#X)(is)\b", r"(?i) ('t)(?#X)(was)\b")]


def _ends_sentence(word: str) -> bool:
    core = word.rstrip("'\")]")
    if core.endswith(("?", "!")):
        return True
    if not core.endswith(".") or core.endswith(".."):
        return False
    stem = core[:-1].lower().lstrip("\"'([{“‘")
    if stem in _ABBREVIATIONS or stem.split("-")[-1] in _ABBREVIATIONS:
        return False
    if re.fullmatch(r"[a-z]", stem) or re.fullmatch(r"[\d.,:/-]*\d[\d.,:/-]*", stem):
        return False
    return True


def split_sentences(text: str) -> list[str]:
    sentences, start = [], 0
    for m in _SENT_END.finditer(text):
        if _ends_sentence(m.group(1)):
            sentences.append(text[start:m.end(1)])
            start = m.end()
    sentences.append(text[start:])
    return [s for s in (s.strip() for s in sentences) if s]


def _treebank(sentence: str) -> list[str]:
    text = sentence
    for rule, repl in _STARTING_QUOTES + _PUNCTUATION:
        text = rule.sub(repl, text)
    for rule, repl in (_BRACKETS, _DOUBLE_DASH):
        text = rule.sub(repl, text)
    text = f" {text} "
    for rule, repl in _ENDING_QUOTES:
        text = rule.sub(repl, text)
    for rule in _CONTRACTIONS:
        text = rule.sub(r" \1 \2 ", text)
    return text.split()


def word_tokenize(text: str) -> list[str]:
    return [tok for sentence in split_sentences(str(text)) for tok in _treebank(sentence)]


# -- BLEU -----------------------------------------------------------------------------------------

def _ngrams(tokens: Sequence[str], n: int) -> Counter:
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


def _modified_precision(reference: Sequence[str], hypothesis: Sequence[str],
                        n: int) -> tuple[int, int]:
    """(clipped matches, hypothesis n-grams), the denominator at least 1 as in NLTK."""
    hyp = _ngrams(hypothesis, n)
    ref = _ngrams(reference, n)
    clipped = sum(min(count, ref[gram]) for gram, count in hyp.items())
    return clipped, max(1, sum(hyp.values()))


def brevity_penalty(ref_len: int, hyp_len: int) -> float:
    if hyp_len > ref_len:
        return 1.0
    if hyp_len == 0:
        return 0.0
    return math.exp(1 - ref_len / hyp_len)


def sentence_bleu(reference: Sequence[str], hypothesis: Sequence[str],
                  weights: Sequence[float] = (1, 0, 0, 0)) -> float:
    """One reference, smoothing method 1: a zero count becomes EPSILON over its denominator."""
    counts = [_modified_precision(reference, hypothesis, n) for n in range(1, len(weights) + 1)]
    if counts[0][0] == 0:
        return 0.0     # no unigram in common: NLTK returns 0 before smoothing
    precisions = [(num if num else EPSILON) / den for num, den in counts]
    log_sum = math.fsum(w * math.log(p) for w, p in zip(weights, precisions) if p > 0)
    return brevity_penalty(len(reference), len(hypothesis)) * math.exp(log_sum)


def bleu1(prediction: str, reference: str) -> float:
    """BLEU-1 of the lowercased, word-tokenized texts; 0 when either side is empty."""
    if not str(prediction).strip() or not str(reference).strip():
        return 0.0
    return sentence_bleu(word_tokenize(str(reference).strip().lower()),
                         word_tokenize(str(prediction).strip().lower()))


def mean(values) -> float | None:
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None
