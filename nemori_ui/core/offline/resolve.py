"""Turning a line someone said into self-contained statements: one clause each, openers and
forms of address dropped, "I" and "you" replaced by the speakers' names.

"Absolutely, I drink three cups every morning" said by Maya becomes "Maya drinks three cups
every morning": a memory read months later, away from the conversation, must still say who.
"""

from __future__ import annotations

import re

from .text import MONTHS, WEEKDAYS, words

# a new independent clause after these joins is a fact of its own
_SUBJECTS = (r"(?:I|I'm|I've|I'll|I'd|you|you're|we|we're|he|she|they|it|it's|my|our|his|her|"
             r"their|[A-Z][a-z]+)\b")
_CLAUSE_JOIN = re.compile(
    r"\s*(?:;|\s[-–—]\s|,\s*(?:but|so|and|because|though|although|while)?\s*(?=" + _SUBJECTS +
    r")|\s+(?:and|but|so)\s+(?=(?:I|I'm|I've|I'll|we|we're|she|he|they)\b))\s*")
_PRONOUN_FIRST = re.compile(r"(?:I|we|he|she|they|it)(?:['’](?:m|re|s|ve|ll|d))?\s+\S", re.I)
_OPENER = re.compile(
    r"^(?:(?:no way(?=\s*[,!.:;-])|oh|ah|wow|yes|yeah|yep|no(?! way\b)|nope|well|so|anyway|anyways|honestly|actually|absolutely|"
    r"definitely|totally|haha|lol|hey|hi|hello|okay|ok|sure|indeed|also|plus|and|but|"
    r"by the way|btw|you know|i mean|to be honest|thanks|thank you|aw|aww|omg|"
    r"then|alright|all right|ha|hah|"
    r"hmm|um|uh|wait|look|listen|guess what|oh man|man|dude|gosh|whoa|yay|"
    # a word that can also begin what is said ("good to see you", "great food there") is an
    # opener only with a mark after it ("Great, ...", "Nice!")
    r"(?:cool|nice|great|awesome|sounds good|good|fun|exactly|agreed|same|perfect|right|true)"
    r"(?=\s*[,!.:;-])|"
    r"(?:big|good|bad|great|sad|exciting|some) news|news|update|fun fact)\b[\s,!.:;-]*)+", re.I)

_MODALS = frozenset("can could will would shall should may might must cannot can't couldn't "
                    "won't wouldn't shouldn't didn't wasn't".split())
ADVERBS = frozenset("""really just also still always never usually often sometimes finally
actually already even only recently totally definitely absolutely mostly truly honestly
especially sort kinda literally basically probably almost hardly seriously now then
currently""".split())
# common irregular past forms: a past verb after "I" keeps its form ("I went" → "Maya went")
PAST_FORMS = frozenset("""was were had did went got saw made took came ate bought found felt said told
thought knew left met ran began gave kept lost paid put read sent sat slept spent stood taught won
wrote brought built caught chose drove drank fell flew forgot grew heard held hurt lent let meant
rode rang rose sang sold shed shot shut spoke stole swam threw understood woke wore became began bit
blew broke dug drew fed fought forgave froze hid hung knelt laid led lit quit set shook sank slid
spun split spread struck swore swept swung tore upset wept learnt spelt dreamt burnt leapt smelt
spilt spoilt fled stuck sought bent bled crept dealt sped spat stung withdrew overcame
underwent""".split())
_IRREGULAR_3RD = {"have": "has", "do": "does", "go": "goes", "be": "is", "am": "is", "are": "is",
                  "don't": "doesn't", "haven't": "hasn't", "aren't": "isn't"}
# (said, as one person's, as one of two joined by "and": "Sven and I've" → "Sven and Leo have")
_CONTRACTIONS = [
    (r"I'm|I am", "{n} is", "{n} are"), (r"I've|I have", "{n} has", "{n} have"),
    (r"I'll", "{n} will", "{n} will"), (r"I'd", "{n} would", "{n} would"),
    (r"I was", "{n} was", "{n} were"),
    (r"you're|you are", "{n} is", "{n} are"), (r"you've|you have", "{n} has", "{n} have"),
    (r"you'll", "{n} will", "{n} will"), (r"you'd", "{n} would", "{n} would"),
    (r"you were", "{n} was", "{n} were"),
]
_WE_FORMS = [(re.compile(rf"\b[Ww]e(?:{pat})\b"), verb) for pat, verb in
             (("'re| are", " are"), ("'ve| have", " have"), ("'ll", " will"), ("'d", " would"))] + \
    [(re.compile(r"\b(?:[Ww]e|[Uu]s)\b"), "")]
# "we" said of the speaker alone, when the message names no one beside them: first person
# plural as singular, for the rules of "I" to name and agree ("we've been" → "I've been")
_WE_AS_I = [(re.compile(rf"\b{said}\b"), one) for said, one in (
    (r"[Ww]e're|[Ww]e are", "I'm"), (r"[Ww]e were", "I was"), (r"[Ww]e've", "I've"),
    (r"[Ww]e'll", "I'll"), (r"[Ww]e'd", "I'd"), (r"[Ww]e", "I"), (r"[Uu]s", "me"),
    (r"[Oo]urselves", "myself"), (r"[Oo]urs", "mine"), (r"[Oo]ur", "my"))]
_CONTRACTION_RE = [(re.compile(rf"\b(?:{pat})\b", re.I if "you" in pat else 0), one, two)
                   for pat, one, two in _CONTRACTIONS]
_WORD_AFTER = re.compile(r"\b(I|you)\s+((?:(?:" + "|".join(sorted(ADVERBS)) +
                         r")\s+)*)([a-z][a-z']*)\b", re.I)
_JOINED = re.compile(r"\b(?:and|&)\s+$")
# words after "I" / "you" that are no verb to agree: "you and Tosca are invited"
_NOT_VERBS = frozenset("and or nor but both all two too alone guys".split())
# "you" starts a clause (a subject) here; elsewhere it is an object and takes no verb agreement
_SUBJECT_YOU = re.compile(r"(?:^|[,;:.!?]\s*|\b(?:and|but|so|that|if|when|because|as|since|"
                          r"while|then|or)\s+)$", re.I)

# a short ask after the speaker's own statement: "I'm off to Porto in May, want to come?"; a
# check that the news is news: "I'm moving in June, did I tell you?"
_ASK_TAIL = re.compile(r",\s*((?:want|wanna|fancy|care|any|anyone|interested|thoughts|ideas|"
                       r"tips|recommendations|you in|keen|(?:so )?maybe|did I (?:tell|mention)|"
                       r"have I (?:told|mentioned))\b[^,]{0,30}\?)\s*$", re.I)
_OWN_HEAD = re.compile(r"(?:^(?:(?:and|but|also|so|plus|oh|well),?\s+)?|,\s*)"
                       r"(?:I|I'm|I've|I'll|we|we're|we've|we'll|my|our)\b", re.I)


def split_ask(sentence: str) -> list[str]:
    """The speaker's statement and the ask after it, as two: the ask is talk, the statement
    may be a fact. A supposition checked with a tag ("..., right?") stays one question."""
    tail = _ASK_TAIL.search(sentence)
    head = sentence[:tail.start()].strip() if tail else ""
    if not tail or not _OWN_HEAD.search(head) or len(head.split()) < 4:
        return [sentence]
    return [head + ".", tail.group(1)]


_BE_HAVE_DO = frozenset("""is are was were be been being am has have had do does did will would
can could may might must should shall won't can't don't doesn't didn't isn't aren't wasn't
weren't hasn't haven't hadn't couldn't wouldn't shouldn't""".split())


_SUBJECT_PRONOUNS = frozenset("i we you they he she".split())


def tensed(low: str) -> bool:
    """A lower-case word that is a verb form wherever it stands: be, have, do or a modal, a
    past form, or a word in -ed."""
    return low in _BE_HAVE_DO or low in PAST_FORMS or (len(low) > 4 and low.endswith("ed"))


def subject_so_far(text: str) -> str:
    """The words since the last punctuation mark, when no verb is among them: what precedes
    an "and I" there is one subject with it ("Also my mum and I ..."); "" otherwise."""
    since = re.split(r"[,;:.!?]", text)[-1].strip()
    return "" if has_verb(since, False) else since


def has_verb(clause: str, s_forms: bool = True) -> bool:
    """Some word can be the clause's verb: the word after a subject pronoun, a form of be,
    have or do, a modal, a contraction ("week's", "we're"), a past form, or a word ending in
    -ed or in a lower-case -s. Plural nouns pass too: only a clause with none of these ("My
    own, a Zephyr AX3", "A little place near Chania") is a fragment for sure. Without
    `s_forms`, a word in -s alone is no verb ("Big news")."""
    said = words(clause)
    for i, w in enumerate(said):
        low = w.lower().replace("’", "'")
        if i and said[i - 1].lower() in _SUBJECT_PRONOUNS:
            return True       # "I cycle", "we work": the word after a subject is its verb
        if tensed(low) or re.search(r"'(?:s|re|ve|ll|d|m)$", low) \
                or (s_forms and w[:1].islower() and len(low) > 3 and low.endswith("s")
                    and not low.endswith("ss")):
            return True
    return False


# ends with a person, no verb before it: "my mum", "My partner Sven", "Also Anika"
_PERSON_AND = re.compile(r"(?:^|\s)(?:(?:[Mm]y|[Oo]ur)\s+[a-z]+(?:\s+[A-Z][a-z]+)?|[A-Z][a-z]+)$")


def split_clauses(sentence: str, shortest: int = 3) -> list[str]:
    """Independent clauses of a sentence. A cut leaves at least `shortest` words after it, and
    a bare "and" needs as many before it: "My partner and I have been together" stays whole.
    A colon between two clauses cuts too ("You missed a big one: Dana dropped Jira"): what
    each says is judged on its own. Before a label ("Quick update: ...") it does not."""
    left, colon, right = sentence.partition(": ")
    if colon and has_verb(left, s_forms=False) and has_verb(right) \
            and len(right.split()) >= shortest:
        return split_clauses(left, shortest) + split_clauses(right, shortest)
    parts, start = [], 0
    for m in _CLAUSE_JOIN.finditer(sentence):
        left, right = sentence[start:m.start()], sentence[m.end():]
        bare = not re.search(r"[,;\-–—]", m.group(0))
        # a comma before words with no verb goes on with a list or a place, not a clause:
        # "I met Ana, Luis and Marta", "a flat in Lisbon, Campo de Ourique"
        listed = m.group(0).strip() == "," and not has_verb(right.split(",")[0])
        # "My partner Sven and I ...": a bare "and" after a person joins a subject
        joined = bare and _PERSON_AND.search(subject_so_far(left))
        # a short clause of its own after a comma: "keep asking to walk Pepper, they're obsessed"
        spliced = m.group(0).strip() == "," and _PRONOUN_FIRST.match(right) and has_verb(right)
        if (len(right.split()) >= shortest or spliced) and left.strip() and not listed \
                and not joined and \
                (not bare or len(left.split()) >= shortest
                 or (m.group(0).strip() in ("but", "so") and len(left.split()) >= 2)):
            parts.append(left.strip(" ,;"))
            start = m.end()
    parts.append(sentence[start:].strip(" ,;"))
    return [p for p in parts if p] or [sentence]


def strip_openers(clause: str, names: list[str]) -> str:
    """Drop interjections and a form of address at either end ("Wow, Mel, ..." / "..., Jon!")."""
    text = _ASIDE.sub("", _OPENER.sub("", clause)).strip()
    for _ in range(2):
        first, sep, rest = text.partition(",")
        if sep and addresses(first.strip(" !"), names):
            text = _OPENER.sub("", rest.strip()).strip()
    head, sep, last = text.rpartition(",")
    if sep and addresses(last.strip(" !.?"), names):
        text = head.strip()
    text = re.sub(r"^(?:hey|hi|hello|dear)\s+\w+[!,.]?\s*", "", text, flags=re.I)
    text = _drop_lead(text)
    text = _SEEN.sub("", text)
    return text[:1].upper() + text[1:] if text else text


# an aside said within or after the statement ("Meera loved the dal by the way")
_ASIDE = re.compile(r",?\s+by the way\b(?=\s*(?:[,.!?;]|$))", re.I)
# a short label before a colon ("Quick update:", "Less fun news:", "The not-so-fun part:")
_LEAD_LABEL = re.compile(r"^([^:\d]{1,40}):\s+(?=\S)")
# one word and a comma before a clause that goes on in lower case ("Done, an engineer will
# come ..."): an interjection; "Mum, Dad and I" goes on with a name and keeps its first word
_LEAD_WORD = re.compile(r"^([A-Za-z]+),\s+(?=[a-z])")
_WHEN_WORDS = frozenset("today tonight tomorrow yesterday now then later earlier recently "
                        "lately".split()) | frozenset(WEEKDAYS) | MONTHS


# the speaker telling how they know what follows: "I can see you've been with us since 2019"
# says "you've been with us since 2019" (a guess, "I think ...", keeps its frame)
_SEEN = re.compile(r"^(?:I|we) (?:can |could )?(?:see|notice|noticed|note|understand) (?:that )?"
                   r"(?=(?:you|he|she|they|[A-Z][a-z]+)\b(?:'ve|'re|'s|'ll| \w+))")


def _drop_lead(text: str) -> str:
    """A lead-in that frames the statement rather than saying it: dropped when at least three
    words of statement follow it. A time word ("Yesterday, the ...") is kept: it dates it."""
    label = _LEAD_LABEL.match(text)
    if label and len(label.group(1).split()) <= 4 and len(text[label.end():].split()) >= 3:
        return text[label.end():]
    word = _LEAD_WORD.match(text)
    if word and word.group(1).lower() not in _WHEN_WORDS \
            and len(text[word.end():].split()) >= 3:
        return text[word.end():]
    return text


def addresses(word: str, names: list[str]) -> bool:
    """A speaker's name, or its short form ("Mel" for Melanie), used to address them."""
    w = word.lower()
    if not w or " " in w:
        return False
    return any(n.lower() == w or (len(w) >= 3 and n.lower().startswith(w)) for n in names)


def third_person(verb: str) -> str:
    low = verb.lower()
    if low in _IRREGULAR_3RD:
        return _IRREGULAR_3RD[low]
    if low.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if low.endswith("y") and len(low) > 1 and low[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def _is_present(word: str) -> bool:
    low = word.lower()
    if low in _MODALS or low in PAST_FORMS or "'" in low and low not in _IRREGULAR_3RD:
        return False
    if low.endswith("ed") and not low.endswith("eed"):
        return False
    return low.isalpha() or low in _IRREGULAR_3RD


def resolve_pronouns(text: str, speaker: str, addressee: str | None,
                     companion: str | None = None) -> str:
    """First person becomes the speaker, second person the one spoken to, verbs agreeing.
    "We" is the speaker and `companion` (the one person named beside them,
    `referents.companion`), or without one the speaker alone. A pronoun inside a hyphenated
    word ("me-time", "a you-first plan") is part of that word."""
    compounds: list[str] = []

    def hide(m: re.Match) -> str:
        compounds.append(m.group(0))
        return f"\x02{len(compounds) - 1}\x03"
    text = _COMPOUND.sub(hide, text)
    return re.sub(r"\x02(\d+)\x03", lambda m: compounds[int(m.group(1))],
                  _resolve(text, speaker, addressee, companion))


_COMPOUND = re.compile(r"\b\w+(?:['’]s)?(?:-\w+)+\b")


def _resolve(text: str, speaker: str, addressee: str | None, companion: str | None) -> str:
    names = {"I": speaker, "you": addressee}
    if not companion:
        for pattern, one in _WE_AS_I:
            text = pattern.sub(one, text)

    def joined(before: str) -> bool:
        # "Sven and I have", "Hannah and I are": one subject of two, its verb plural
        found = _JOINED.search(before)
        return bool(found) and bool(subject_so_far(before[:found.start()]))

    for pattern, one, two in _CONTRACTION_RE:
        if "you" in pattern.pattern and not addressee:
            continue
        name = addressee if "you" in pattern.pattern else speaker
        text = pattern.sub(lambda m, n=name, one=one, two=two:
                           (two if joined(m.string[:m.start()]) else one).format(n=n), text)

    def agree(m: re.Match) -> str:
        who, adverbs, verb = m.group(1), m.group(2), m.group(3)
        name = names["I" if who == "I" else "you"]
        if not name or verb.lower() in _NOT_VERBS:
            return m.group(0)
        if who.lower() == "you" and not _SUBJECT_YOU.search(text[:m.start()]):
            return m.group(0)
        if joined(text[:m.start()]):
            return f"{who}\0{adverbs}{verb}"
        return f"{who}\0{adverbs}{third_person(verb) if _is_present(verb) else verb}"
    text = _WORD_AFTER.sub(agree, text).replace("I\0", f"{speaker} ")
    if addressee:
        text = re.sub(r"\b[Yy]ou\0", f"{addressee} ", text)
    text = re.sub(r"\bI\b", speaker, text)
    text = _reflexives(text, bool(addressee))
    text = re.sub(r"\b(?:[Mm]y|[Mm]ine)\b", f"{speaker}'s", text)
    text = re.sub(r"\b[Mm]e\b", speaker, text)
    # "we": the speaker and the one person the message names beside them
    for pattern, verb in _WE_FORMS if companion else ():
        text = pattern.sub(f"{speaker} and {companion}{verb}", text)
    text = re.sub(r"\b(?:[Oo]ur|[Oo]urs)\b", f"{speaker}'s", text)
    if addressee:
        text = re.sub(r"\b(?:[Yy]our|[Yy]ours)\b", f"{addressee}'s", text)
        text = re.sub(r"\b[Yy]ou\b", addressee, text)
    return text.replace("\0", " ")


def _reflexives(text: str, addressed: bool) -> str:
    """A reflexive stands for the subject already named, so the name is not said twice ("I
    drew the plans myself" is no "Tomas drew the plans Tomas"): "by myself" is "alone", any
    other is "themself", which says one person without guessing a gender."""
    who = r"myself|ourselves|yourself" if addressed else r"myself|ourselves"
    text = re.sub(rf"\b[Bb]y (?:{who})\b", "alone", text)
    text = re.sub(r"\b[Oo]urselves\b", "themselves", text)
    return re.sub(rf"\b(?:{who})\b", "themself", text, flags=re.I)