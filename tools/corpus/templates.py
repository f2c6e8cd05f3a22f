"""Sentence templates for the bundled English–French corpus (book §10.5 style data).

Each ``family_*`` function yields ``(english, french)`` pairs with French agreement and elision done here.
"""
from __future__ import annotations

from collections.abc import Iterator

from lexicon import (ALLER, AVOIR, AVOIR_IMPF, AVOIR_STATES, CORE_PAST, CORE_PRESENT, DEVOIR, ETRE,
                     ETRE_IMPF, ASKABLE_PRESENT, INFINITIVES, LIKES, NOUNS, PARTITIVES, PERSON_ADJECTIVES,
                     SUBJECTS, THING_ADJECTIVES, VERB, VOULOIR, VOWELS, Noun, Subject, Verb)

Pair = tuple[str, str]
ELIDING = {"je", "ne", "de", "que", "le", "la", "me", "te", "se"}
NAMES = {"Tom", "Mary"}
AIMER = ("aime", "aimes", "aime", "aimons", "aiment")
DETESTER = ("déteste", "détestes", "déteste", "détestons", "détestent")
ADORER = ("adore", "adores", "adore", "adorons", "adorent")


def fr(*words: str, end: str = ".") -> str:
    """Join French words with elision (je ai -> j'ai, ne est -> n'est) and end punctuation."""
    out: list[str] = []
    for chunk in words:
        for w in chunk.split(" "):
            if out and out[-1].lower() in ELIDING and w[0].lower() in VOWELS:
                out[-1] = out[-1][:-1] + "'" + w
            else:
                out.append(w)
    text = " ".join(out)
    text = text[0].upper() + text[1:]
    return text + end if end == "." else text + " " + end


def en(*words: str, end: str = ".") -> str:
    """Join English words, capitalise the first letter, attach the end punctuation."""
    text = " ".join(words)
    return text[0].upper() + text[1:] + end


def low(s: Subject) -> str:
    """English subject inside a sentence ("he", but "I", "Tom")."""
    return s.en if s.en in NAMES or s.en == "I" else s.en.lower()


def agree(s: Subject, m: str, f: str, mp: str) -> str:
    """Pick the adjective form agreeing with the subject and fill in ``chez {stressed}``."""
    form = mp if s.plural else (f if s.feminine else m)
    return form.format(stressed=s.stressed)


def participle(v: Verb, s: Subject) -> str:
    """Past participle; with être it agrees with the subject (partie, partis)."""
    if v.aux == "a":
        return v.fr_pp
    return v.fr_pp + ("e" if s.feminine else "") + ("s" if s.plural else "")


def verb_s(v: Verb, s: Subject) -> str:
    return v.en_s if s.third else v.en


# ----------------------------------------------------------------------------- two-word core
def family_be_adj(neg: bool = False, past: bool = False, question: bool = False,
                  very: bool = False) -> Iterator[Pair]:
    """I'm calm / I'm not calm / I was calm / Are you calm? / I'm very calm."""
    for s in SUBJECTS:
        for e, m, f, mp, gradable in PERSON_ADJECTIVES:
            form, p = agree(s, m, f, mp), s.person
            if (very and not gradable) or (past and e == "back"):
                continue
            if question:
                if s.en == "I" and e not in ("late", "early", "right", "lost", "safe"):
                    continue
                yield en(s.en_q_be, e, end="?"), fr(s.fr_q_be, form, end="?")
            elif neg:
                yield en(s.en_be_neg, e), fr(s.fr, "ne", ETRE[p], "pas", form)
            elif past:
                yield en(s.en_was, e), fr(s.fr, ETRE_IMPF[p], form)
            elif very:
                yield en(s.en_be, "very", e), fr(s.fr, ETRE[p], "très", form)
            else:
                yield en(s.en_be, e), fr(s.fr, ETRE[p], form)


def family_avoir(neg: bool = False, past: bool = False, question: bool = False) -> Iterator[Pair]:
    """I'm hungry = J'ai faim, and its negative, past and question."""
    for s in SUBJECTS:
        for e, noun in AVOIR_STATES:
            p = s.person
            if question:
                if s.en != "I":
                    yield en(s.en_q_be, e, end="?"), fr(s.fr_q_have, noun, end="?")
            elif neg:
                yield en(s.en_be_neg, e), fr(s.fr, "ne", AVOIR[p], "pas", noun)
            elif past:
                yield en(s.en_was, e), fr(s.fr, AVOIR_IMPF[p], noun)
            else:
                yield en(s.en_be, e), fr(s.fr, AVOIR[p], noun)


def family_fine() -> Iterator[Pair]:
    """I'm fine = Je vais bien."""
    for s in SUBJECTS:
        yield en(s.en_be, "fine"), fr(s.fr, ALLER[s.person], "bien")


def family_past(verbs: tuple[str, ...], neg: bool = False, question: bool = False) -> Iterator[Pair]:
    """I lost / I didn't win / Did she leave? (passé composé, être verbs agree)."""
    for s in SUBJECTS:
        for name in verbs:
            v, p = VERB[name], s.person
            aux = (AVOIR if v.aux == "a" else ETRE)[p]
            pp = participle(v, s)
            if question:
                if s.en != "I":
                    q = s.fr_q_have if v.aux == "a" else s.fr_q_be
                    yield en("Did", low(s), v.en, end="?"), fr(q, pp, end="?")
            elif neg:
                yield en(s.en, "didn't", v.en), fr(s.fr, "ne", aux, "pas", pp)
            else:
                yield en(s.en, v.en_past), fr(s.fr, aux, pp)


def family_present(verbs: tuple[str, ...], neg: bool = False, question: bool = False) -> Iterator[Pair]:
    """I know / He doesn't smoke / Does Tom swim? (questions with est-ce que)."""
    for s in SUBJECTS:
        for name in verbs:
            v, p = VERB[name], s.person
            if question:
                if s.en not in ("I", "We"):
                    yield en(s.en_do, v.en, end="?"), fr("est-ce que", s.fr, v.fr_pres[p], end="?")
            elif neg:
                yield (en(s.en, "doesn't" if s.third else "don't", v.en),
                       fr(s.fr, "ne", v.fr_pres[p], "pas"))
            else:
                yield en(s.en, verb_s(v, s)), fr(s.fr, v.fr_pres[p])


def family_home(verb: str) -> Iterator[Pair]:
    """I stayed home = Je suis resté chez moi; I went home = Je suis rentré chez moi."""
    pp, e = ("resté", "stayed") if verb == "stay" else ("rentré", "went")
    for s in SUBJECTS:
        form = pp + ("e" if s.feminine else "") + ("s" if s.plural else "")
        yield en(s.en, e, "home"), fr(s.fr, ETRE[s.person], form, "chez", s.stressed)


# ----------------------------------------------------------------------------- longer families
def family_modal(kind: str, neg: bool = False) -> Iterator[Pair]:
    """I want to sleep / I have to leave / I'm going to win / I want to go home."""
    table = {"want": (("want", "wants"), VOULOIR), "must": (("have", "has"), DEVOIR)}
    for s in SUBJECTS:
        for name in INFINITIVES + ("home",):
            inf = "rentrer chez " + s.stressed if name == "home" else VERB[name].fr_inf
            e_inf = "go home" if name == "home" else name
            if kind == "going":
                if not neg:
                    yield en(s.en_be, "going to", e_inf), fr(s.fr, ALLER[s.person], inf)
                continue
            (plain, third), conj = table[kind]
            if neg and kind == "want":
                yield (en(s.en, "doesn't" if s.third else "don't", "want to", e_inf),
                       fr(s.fr, "ne", conj[s.person], "pas", inf))
            elif not neg:
                yield en(s.en, third if s.third else plain, "to", e_inf), fr(s.fr, conj[s.person], inf)


def family_likes(kind: str) -> Iterator[Pair]:
    """I like tea / I don't like tea / Do you like tea? / I hate rain / I love music."""
    for s in SUBJECTS:
        p = s.person
        for e, f in LIKES:
            if kind == "like":
                yield en(s.en, "likes" if s.third else "like", e), fr(s.fr, AIMER[p], f)
            elif kind == "neg":
                yield en(s.en, "doesn't" if s.third else "don't", "like", e), fr(s.fr, "ne", AIMER[p], "pas", f)
            elif kind == "hate":
                yield en(s.en, "hates" if s.third else "hate", e), fr(s.fr, DETESTER[p], f)
            elif kind == "love":
                yield en(s.en, "loves" if s.third else "love", e), fr(s.fr, ADORER[p], f)
            elif kind == "question" and s.en not in ("I", "We"):
                pron = s.fr if s.en not in NAMES else ("elle" if s.feminine else "il")
                verb = AIMER[p] + ("-t-" if AIMER[p].endswith("e") else "-") + pron
                subj = s.fr + " " if s.en in NAMES else ""
                yield en(s.en_do, "like", e, end="?"), fr(subj + verb, f, end="?")


def family_partitive(kind: str) -> Iterator[Pair]:
    """I want tea = Je veux du thé; I need water = J'ai besoin d'eau; I drink milk = Je bois du lait."""
    drinks = {"tea", "coffee", "milk", "wine", "beer", "water"}
    boire = ("bois", "bois", "boit", "buvons", "boivent")
    for s in SUBJECTS:
        p = s.person
        for e, with_article, bare in PARTITIVES:
            if kind == "want" and e not in ("help", "time"):
                yield en(s.en, "wants" if s.third else "want", e), fr(s.fr, VOULOIR[p], with_article)
            elif kind == "need":
                yield en(s.en, "needs" if s.third else "need", e), fr(s.fr, AVOIR[p], "besoin de", bare)
            elif kind == "drink" and e in drinks:
                yield en(s.en, "drinks" if s.third else "drink", e), fr(s.fr, boire[p], with_article)


def _article_en(word: str) -> str:
    return "an" if word[0] in "aeiou" else "a"


def _possessive(s: Subject, n: Noun, plural: bool) -> str:
    m, f, pl = s.fr_poss
    if plural:
        return pl
    return f if n.feminine and n.fr[0] not in VOWELS else m


def _definite(n: Noun, plural: bool) -> str:
    if plural:
        return "les " + n.fr_pl
    if n.fr[0] in VOWELS:
        return "l'" + n.fr
    return ("la " if n.feminine else "le ") + n.fr


PORTABLE = {"dog", "cat", "bag", "key", "phone", "watch", "hat", "coat", "umbrella", "ticket", "pen",
            "book", "bike", "computer", "box", "cup"}


def family_nouns(kind: str) -> Iterator[Pair]:
    """Nouns with articles, possessives and adjective agreement (un/une, mon/ma/mes, grand/grande)."""
    for n in NOUNS:
        un = "une" if n.feminine else "un"
        for s in SUBJECTS:
            p = s.person
            if kind == "have" and n.en not in ("ticket",):
                yield (en(s.en, "has" if s.third else "have", _article_en(n.en), n.en),
                       fr(s.fr, AVOIR[p], un, n.fr))
            elif kind == "need" and n.en in PORTABLE:
                yield (en(s.en, "needs" if s.third else "need", _article_en(n.en), n.en),
                       fr(s.fr, AVOIR[p], "besoin de", un, n.fr))
            elif kind in ("lost", "found") and n.en in PORTABLE:
                pp = "perdu" if kind == "lost" else "trouvé"
                for plural in (False, True):
                    word, fword = (n.en_pl, n.fr_pl) if plural else (n.en, n.fr)
                    yield (en(s.en, kind, s.en_poss, word),
                           fr(s.fr, AVOIR[p], pp, _possessive(s, n, plural), fword))
            elif kind == "where" and n.en in PORTABLE and s.en in ("I", "You", "He", "She"):
                yield en("Where's", s.en_poss, n.en, end="?"), fr("où est", _possessive(s, n, False), n.fr, end="?")
                yield (en("Where are", s.en_poss, n.en_pl, end="?"),
                       fr("où sont", _possessive(s, n, True), n.fr_pl, end="?"))
        for e_adj in n.adjectives:
            m, f, mp, fp = THING_ADJECTIVES[e_adj]
            if kind == "the_is":
                yield en("The", n.en, "is", e_adj), fr(_definite(n, False), "est", f if n.feminine else m)
            elif kind == "the_are":
                yield en("The", n.en_pl, "are", e_adj), fr(_definite(n, True), "sont", fp if n.feminine else mp)
            elif kind == "my_is":
                for s in SUBJECTS[:2]:
                    yield (en(s.en_poss, n.en, "is", e_adj),
                           fr(_possessive(s, n, False), n.fr, "est", f if n.feminine else m))


def core_pairs() -> list[Pair]:
    """The one- and two-word pairs (all of them go in: the book's first 600 lines come from here)."""
    out: list[Pair] = []
    for gen in (family_be_adj(), family_avoir(), family_fine(), family_past(CORE_PAST),
                family_present(CORE_PRESENT)):
        out.extend(gen)
    return out


def extended_families() -> dict[str, list[Pair]]:
    """Longer pairs (three words and more), sampled to fill the rest of the file."""
    fams = {
        "be_neg": family_be_adj(neg=True), "be_past": family_be_adj(past=True),
        "be_q": family_be_adj(question=True), "be_very": family_be_adj(very=True),
        "avoir_neg": family_avoir(neg=True), "avoir_past": family_avoir(past=True),
        "avoir_q": family_avoir(question=True),
        "past_neg": family_past(CORE_PAST, neg=True), "past_q": family_past(CORE_PAST, question=True),
        "pres_neg": family_present(ASKABLE_PRESENT, neg=True),
        "pres_q": family_present(ASKABLE_PRESENT, question=True),
        "home_stay": family_home("stay"), "home_go": family_home("go"),
        "want": family_modal("want"), "want_neg": family_modal("want", neg=True),
        "must": family_modal("must"), "going": family_modal("going"),
        "like": family_likes("like"), "like_neg": family_likes("neg"), "like_q": family_likes("question"),
        "hate": family_likes("hate"), "love": family_likes("love"),
        "p_want": family_partitive("want"), "p_need": family_partitive("need"),
        "p_drink": family_partitive("drink"),
        "n_have": family_nouns("have"), "n_need": family_nouns("need"), "n_lost": family_nouns("lost"),
        "n_found": family_nouns("found"), "n_where": family_nouns("where"),
        "the_is": family_nouns("the_is"), "the_are": family_nouns("the_are"), "my_is": family_nouns("my_is"),
    }
    return {k: list(v) for k, v in fams.items()}
