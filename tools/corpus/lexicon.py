"""Word tables for the bundled English–French corpus (book §10.5 style data), written by this project.

Subjects, adjectives, verbs and nouns with the French forms the templates in ``generate.py`` need.
"""
from __future__ import annotations

from dataclasses import dataclass

VOWELS = "aeiouyàâéèêëîïôûùœh"  # every h-word used here is an h muet (honnête, heureux, hiver)


@dataclass(frozen=True)
class Subject:
    """A grammatical subject in both languages; ``person`` indexes French conjugations (0 je … 4 ils)."""

    en: str          # "He"
    en_be: str       # "He's"
    en_be_neg: str   # "He isn't"
    en_was: str      # "He was"
    en_q_be: str     # "Is he"
    en_do: str       # "Does he"
    third: bool      # English verb takes -s
    fr: str          # "il"
    person: int
    feminine: bool
    plural: bool
    fr_q_be: str     # "Est-il"
    fr_q_have: str   # "A-t-il"
    stressed: str    # "lui" (chez lui)
    en_poss: str     # "his"
    fr_poss: tuple[str, str, str]  # (masculine, feminine, plural) possessive determiners


SUBJECTS = (
    Subject("I", "I'm", "I'm not", "I was", "Am I", "Do I", False, "je", 0, False, False,
            "Suis-je", "Ai-je", "moi", "my", ("mon", "ma", "mes")),
    Subject("You", "You're", "You aren't", "You were", "Are you", "Do you", False, "tu", 1, False, False,
            "Es-tu", "As-tu", "toi", "your", ("ton", "ta", "tes")),
    Subject("He", "He's", "He isn't", "He was", "Is he", "Does he", True, "il", 2, False, False,
            "Est-il", "A-t-il", "lui", "his", ("son", "sa", "ses")),
    Subject("She", "She's", "She isn't", "She was", "Is she", "Does she", True, "elle", 2, True, False,
            "Est-elle", "A-t-elle", "elle", "her", ("son", "sa", "ses")),
    Subject("We", "We're", "We aren't", "We were", "Are we", "Do we", False, "nous", 3, False, True,
            "Sommes-nous", "Avons-nous", "nous", "our", ("notre", "notre", "nos")),
    Subject("They", "They're", "They aren't", "They were", "Are they", "Do they", False, "ils", 4, False, True,
            "Sont-ils", "Ont-ils", "eux", "their", ("leur", "leur", "leurs")),
    Subject("Tom", "Tom's", "Tom isn't", "Tom was", "Is Tom", "Does Tom", True, "Tom", 2, False, False,
            "Tom est-il", "Tom a-t-il", "lui", "his", ("son", "sa", "ses")),
    Subject("Mary", "Mary's", "Mary isn't", "Mary was", "Is Mary", "Does Mary", True, "Marie", 2, True, False,
            "Marie est-elle", "Marie a-t-elle", "elle", "her", ("son", "sa", "ses")),
)

# French present and imperfect of être / avoir / aller, by person (je, tu, il, nous, ils).
ETRE = ("suis", "es", "est", "sommes", "sont")
ETRE_IMPF = ("étais", "étais", "était", "étions", "étaient")
AVOIR = ("ai", "as", "a", "avons", "ont")
AVOIR_IMPF = ("avais", "avais", "avait", "avions", "avaient")
ALLER = ("vais", "vas", "va", "allons", "vont")
VOULOIR = ("veux", "veux", "veut", "voulons", "veulent")
DEVOIR = ("dois", "dois", "doit", "devons", "doivent")

# Adjectives said of people: (English, masculine, feminine, masculine plural, gradable with "very").
# Forms containing a space are invariable phrases ("en retard").
PERSON_ADJECTIVES = (
    ("calm", "calme", "calme", "calmes", True),
    ("happy", "content", "contente", "contents", True),
    ("sad", "triste", "triste", "tristes", True),
    ("tired", "fatigué", "fatiguée", "fatigués", True),
    ("ready", "prêt", "prête", "prêts", False),
    ("busy", "occupé", "occupée", "occupés", True),
    ("sick", "malade", "malade", "malades", True),
    ("late", "en retard", "en retard", "en retard", False),
    ("early", "en avance", "en avance", "en avance", False),
    ("lost", "perdu", "perdue", "perdus", False),
    ("alone", "seul", "seule", "seuls", False),
    ("free", "libre", "libre", "libres", False),
    ("rich", "riche", "riche", "riches", True),
    ("young", "jeune", "jeune", "jeunes", True),
    ("old", "vieux", "vieille", "vieux", True),
    ("tall", "grand", "grande", "grands", True),
    ("strong", "fort", "forte", "forts", True),
    ("shy", "timide", "timide", "timides", True),
    ("kind", "gentil", "gentille", "gentils", True),
    ("sure", "sûr", "sûre", "sûrs", False),
    ("safe", "en sécurité", "en sécurité", "en sécurité", False),
    ("back", "de retour", "de retour", "de retour", False),
    ("here", "ici", "ici", "ici", False),
    ("home", "chez {stressed}", "chez {stressed}", "chez {stressed}", False),
    ("angry", "fâché", "fâchée", "fâchés", True),
    ("awake", "réveillé", "réveillée", "réveillés", False),
    ("wet", "mouillé", "mouillée", "mouillés", False),
    ("brave", "courageux", "courageuse", "courageux", True),
    ("lazy", "paresseux", "paresseuse", "paresseux", True),
    ("smart", "intelligent", "intelligente", "intelligents", True),
    ("honest", "honnête", "honnête", "honnêtes", True),
    ("polite", "poli", "polie", "polis", True),
    ("married", "marié", "mariée", "mariés", False),
    ("serious", "sérieux", "sérieuse", "sérieux", True),
    ("proud", "fier", "fière", "fiers", True),
    ("nervous", "nerveux", "nerveuse", "nerveux", True),
    ("famous", "célèbre", "célèbre", "célèbres", True),
    ("jealous", "jaloux", "jalouse", "jaloux", True),
    ("curious", "curieux", "curieuse", "curieux", True),
    ("surprised", "surpris", "surprise", "surpris", True),
)

# "I'm hungry" = "J'ai faim": avoir + an invariable noun.
AVOIR_STATES = (
    ("hungry", "faim"), ("thirsty", "soif"), ("cold", "froid"), ("hot", "chaud"),
    ("scared", "peur"), ("right", "raison"), ("wrong", "tort"), ("sleepy", "sommeil"),
)

# Verbs: English base, 3rd singular, past, participle-or-None; French infinitive, present by person,
# past participle and auxiliary ("a" avoir / "e" être).
@dataclass(frozen=True)
class Verb:
    en: str
    en_s: str
    en_past: str
    fr_inf: str
    fr_pres: tuple[str, str, str, str, str]
    fr_pp: str
    aux: str = "a"


def _er(stem: str, nous: str | None = None) -> tuple[str, str, str, str, str]:
    """Present tense of a regular -er verb from its stem (``nous`` overrides e.g. ``mangeons``)."""
    return (stem + "e", stem + "es", stem + "e", nous or stem + "ons", stem + "ent")


VERBS = (
    Verb("lose", "loses", "lost", "perdre", ("perds", "perds", "perd", "perdons", "perdent"), "perdu"),
    Verb("win", "wins", "won", "gagner", _er("gagn"), "gagné"),
    Verb("pay", "pays", "paid", "payer", _er("pai", "payons"), "payé"),
    Verb("eat", "eats", "ate", "manger", _er("mang", "mangeons"), "mangé"),
    Verb("try", "tries", "tried", "essayer", _er("essai", "essayons"), "essayé"),
    Verb("lie", "lies", "lied", "mentir", ("mens", "mens", "ment", "mentons", "mentent"), "menti"),
    Verb("sleep", "sleeps", "slept", "dormir", ("dors", "dors", "dort", "dormons", "dorment"), "dormi"),
    Verb("laugh", "laughs", "laughed", "rire", ("ris", "ris", "rit", "rions", "rient"), "ri"),
    Verb("cry", "cries", "cried", "pleurer", _er("pleur"), "pleuré"),
    Verb("wait", "waits", "waited", "attendre", ("attends", "attends", "attend", "attendons", "attendent"),
         "attendu"),
    Verb("work", "works", "worked", "travailler", _er("travaill"), "travaillé"),
    Verb("dance", "dances", "danced", "danser", _er("dans"), "dansé"),
    Verb("sing", "sings", "sang", "chanter", _er("chant"), "chanté"),
    Verb("swim", "swims", "swam", "nager", _er("nag", "nageons"), "nagé"),
    Verb("run", "runs", "ran", "courir", ("cours", "cours", "court", "courons", "courent"), "couru"),
    Verb("forget", "forgets", "forgot", "oublier", _er("oubli"), "oublié"),
    Verb("cook", "cooks", "cooked", "cuisiner", _er("cuisin"), "cuisiné"),
    Verb("smile", "smiles", "smiled", "sourire", ("souris", "souris", "sourit", "sourions", "sourient"),
         "souri"),
    Verb("shout", "shouts", "shouted", "crier", _er("cri"), "crié"),
    Verb("read", "reads", "read", "lire", ("lis", "lis", "lit", "lisons", "lisent"), "lu"),
    Verb("write", "writes", "wrote", "écrire", ("écris", "écris", "écrit", "écrivons", "écrivent"), "écrit"),
    Verb("study", "studies", "studied", "étudier", _er("étudi"), "étudié"),
    Verb("travel", "travels", "traveled", "voyager", _er("voyag", "voyageons"), "voyagé"),
    Verb("smoke", "smokes", "smoked", "fumer", _er("fum"), "fumé"),
    Verb("help", "helps", "helped", "aider", _er("aid"), "aidé"),
    Verb("play", "plays", "played", "jouer", _er("jou"), "joué"),
    Verb("leave", "leaves", "left", "partir", ("pars", "pars", "part", "partons", "partent"), "parti", "e"),
    Verb("come", "comes", "came", "venir", ("viens", "viens", "vient", "venons", "viennent"), "venu", "e"),
    Verb("fall", "falls", "fell", "tomber", _er("tomb"), "tombé", "e"),
    Verb("stay", "stays", "stayed", "rester", _er("rest"), "resté", "e"),
    Verb("know", "knows", "knew", "savoir", ("sais", "sais", "sait", "savons", "savent"), "su"),
    Verb("understand", "understands", "understood", "comprendre",
         ("comprends", "comprends", "comprend", "comprenons", "comprennent"), "compris"),
)
VERB = {v.en: v for v in VERBS}

# Short-list used for two-word sentences (the part the book trains on).
CORE_PAST = ("lose", "win", "pay", "eat", "try", "lie", "sleep", "laugh", "cry", "wait", "work",
             "forget", "leave", "come", "fall")
CORE_PRESENT = ("know", "understand", "work", "sing", "dance", "swim", "smoke", "lie")
# Verbs whose negative and question sound natural on their own ("I don't cook", "Do you read?").
ASKABLE_PRESENT = ("know", "understand", "work", "sing", "dance", "swim", "smoke", "read", "write", "cook",
                   "study", "travel", "play", "eat", "sleep", "run")
INFINITIVES = ("sleep", "eat", "dance", "sing", "swim", "run", "read", "write", "work", "leave",
               "stay", "play", "win", "travel", "study", "help", "wait", "cook")


@dataclass(frozen=True)
class Noun:
    """A countable noun: English singular/plural, French singular/plural, gender, describing adjectives."""

    en: str
    en_pl: str
    fr: str
    fr_pl: str
    feminine: bool
    adjectives: tuple[str, ...]


# Adjectives said of things: English -> (m, f, m pl, f pl).
THING_ADJECTIVES = {
    "big": ("grand", "grande", "grands", "grandes"),
    "small": ("petit", "petite", "petits", "petites"),
    "new": ("neuf", "neuve", "neufs", "neuves"),
    "old": ("vieux", "vieille", "vieux", "vieilles"),
    "red": ("rouge", "rouge", "rouges", "rouges"),
    "blue": ("bleu", "bleue", "bleus", "bleues"),
    "green": ("vert", "verte", "verts", "vertes"),
    "black": ("noir", "noire", "noirs", "noires"),
    "white": ("blanc", "blanche", "blancs", "blanches"),
    "clean": ("propre", "propre", "propres", "propres"),
    "dirty": ("sale", "sale", "sales", "sales"),
    "expensive": ("cher", "chère", "chers", "chères"),
    "heavy": ("lourd", "lourde", "lourds", "lourdes"),
    "empty": ("vide", "vide", "vides", "vides"),
    "full": ("plein", "pleine", "pleins", "pleines"),
    "broken": ("cassé", "cassée", "cassés", "cassées"),
    "open": ("ouvert", "ouverte", "ouverts", "ouvertes"),
    "closed": ("fermé", "fermée", "fermés", "fermées"),
    "hot": ("chaud", "chaude", "chauds", "chaudes"),
    "cold": ("froid", "froide", "froids", "froides"),
    "beautiful": ("beau", "belle", "beaux", "belles"),
    "wet": ("mouillé", "mouillée", "mouillés", "mouillées"),
}

NOUNS = (
    Noun("dog", "dogs", "chien", "chiens", False, ("big", "small", "old", "black", "white", "dirty", "wet")),
    Noun("cat", "cats", "chat", "chats", False, ("big", "small", "old", "black", "white", "beautiful")),
    Noun("horse", "horses", "cheval", "chevaux", False, ("big", "small", "old", "black", "white", "beautiful")),
    Noun("bird", "birds", "oiseau", "oiseaux", False, ("small", "red", "blue", "black", "white", "beautiful")),
    Noun("car", "cars", "voiture", "voitures", True,
         ("big", "small", "new", "old", "red", "blue", "black", "white", "dirty", "expensive", "broken")),
    Noun("house", "houses", "maison", "maisons", True,
         ("big", "small", "new", "old", "white", "clean", "empty", "expensive", "beautiful", "cold")),
    Noun("book", "books", "livre", "livres", False, ("old", "new", "red", "blue", "heavy", "expensive", "open")),
    Noun("bag", "bags", "sac", "sacs", False, ("heavy", "empty", "full", "big", "small", "black", "new", "open")),
    Noun("box", "boxes", "boîte", "boîtes", True, ("heavy", "empty", "full", "big", "small", "open", "closed")),
    Noun("door", "doors", "porte", "portes", True, ("open", "closed", "red", "blue", "white", "green", "old")),
    Noun("window", "windows", "fenêtre", "fenêtres", True, ("open", "closed", "clean", "dirty", "broken")),
    Noun("room", "rooms", "chambre", "chambres", True, ("big", "small", "clean", "dirty", "empty", "cold")),
    Noun("cup", "cups", "tasse", "tasses", True, ("empty", "full", "hot", "broken", "clean", "dirty", "white")),
    Noun("glass", "glasses", "verre", "verres", False, ("empty", "full", "broken", "clean", "dirty")),
    Noun("shirt", "shirts", "chemise", "chemises", True, ("clean", "dirty", "new", "white", "blue", "red", "wet")),
    Noun("bike", "bikes", "vélo", "vélos", False, ("new", "old", "red", "blue", "broken", "expensive")),
    Noun("phone", "phones", "téléphone", "téléphones", False, ("new", "old", "broken", "expensive", "black")),
    Noun("watch", "watches", "montre", "montres", True, ("new", "old", "broken", "expensive", "beautiful")),
    Noun("hat", "hats", "chapeau", "chapeaux", False, ("black", "red", "new", "old", "big", "small", "wet")),
    Noun("coat", "coats", "manteau", "manteaux", False, ("new", "old", "black", "wet", "heavy", "expensive")),
    Noun("table", "tables", "table", "tables", True, ("big", "small", "clean", "dirty", "white", "old", "new")),
    Noun("chair", "chairs", "chaise", "chaises", True, ("broken", "old", "new", "small", "red", "wet")),
    Noun("key", "keys", "clé", "clés", True, ("small", "old", "new", "broken")),
    Noun("computer", "computers", "ordinateur", "ordinateurs", False, ("new", "old", "broken", "expensive")),
    Noun("apple", "apples", "pomme", "pommes", True, ("red", "green", "big", "small")),
    Noun("umbrella", "umbrellas", "parapluie", "parapluies", False, ("wet", "new", "old", "black", "broken")),
    Noun("ticket", "tickets", "billet", "billets", False, ("expensive", "old", "new")),
    Noun("pen", "pens", "stylo", "stylos", False, ("red", "blue", "black", "new", "old")),
    Noun("dress", "dresses", "robe", "robes", True, ("red", "blue", "white", "new", "beautiful", "expensive")),
    Noun("garden", "gardens", "jardin", "jardins", False, ("big", "small", "beautiful", "green")),
    Noun("idea", "ideas", "idée", "idées", True, ()),
    Noun("friend", "friends", "ami", "amis", False, ()),
)

# Things people like, with the French definite article: (English, French).
LIKES = (
    ("tea", "le thé"), ("coffee", "le café"), ("milk", "le lait"), ("wine", "le vin"), ("beer", "la bière"),
    ("bread", "le pain"), ("cheese", "le fromage"), ("chocolate", "le chocolat"), ("rice", "le riz"),
    ("soup", "la soupe"), ("fish", "le poisson"), ("meat", "la viande"), ("fruit", "les fruits"),
    ("apples", "les pommes"), ("cats", "les chats"), ("dogs", "les chiens"), ("birds", "les oiseaux"),
    ("horses", "les chevaux"), ("flowers", "les fleurs"), ("books", "les livres"), ("movies", "les films"),
    ("music", "la musique"), ("sports", "le sport"), ("jazz", "le jazz"), ("winter", "l'hiver"),
    ("summer", "l'été"), ("snow", "la neige"), ("rain", "la pluie"), ("school", "l'école"),
    ("water", "l'eau"), ("tennis", "le tennis"), ("cake", "le gâteau"), ("eggs", "les œufs"),
    ("oranges", "les oranges"), ("art", "l'art"), ("history", "l'histoire"),
)

# Mass nouns taking the partitive ("Je veux du thé", "J'ai besoin d'eau").
PARTITIVES = (
    ("tea", "du thé", "thé"), ("coffee", "du café", "café"), ("milk", "du lait", "lait"),
    ("wine", "du vin", "vin"), ("beer", "de la bière", "bière"), ("bread", "du pain", "pain"),
    ("water", "de l'eau", "eau"), ("cheese", "du fromage", "fromage"), ("rice", "du riz", "riz"),
    ("soup", "de la soupe", "soupe"), ("money", "de l'argent", "argent"), ("help", "de l'aide", "aide"),
    ("time", "du temps", "temps"), ("sugar", "du sucre", "sucre"),
)
