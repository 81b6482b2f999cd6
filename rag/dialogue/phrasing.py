"""How travellers say what they want of a conversation, in en, es, fr, de, it and pt. Data and pure
look-ups, read on folded text (lower case, accents removed: connectors.places.fold).

- ``social``: thanks, goodbye, hello, or "yes"/"no" alone;
- ``PICK_*``: which of the results shown a recall asks about (the cheapest, the first, the second);
- ``recall_cue``: a question about results already shown ("which was cheapest?", "the first one you
  showed", "what did the flights cost again?", "¿cuál salía más barato?", "Zeig mir nochmal die Flüge");
- ``is_question``, ``is_request``: a question of its own, an explicit ask for a search ("find",
  "busca", "trouve-moi", "such mir", "cerca", "procura").
"""

from __future__ import annotations

import re
from typing import Literal

from connectors.places import fold

Social = Literal["thanks", "bye", "hello", "yes", "no"]
Pick = Literal["cheapest", "dearest"] | int

_THANKS = (
    r"thanks?|thank you|thx|ty|cheers|ta|much appreciated|appreciate it|arigato|gracias|merci|danke|"
    r"dankesch[o]n|vielen dank|grazie|obrigad[oa]|valeu"
)
_BYE = (
    r"bye|goodbye|good bye|see you|see ya|that'?s (?:all|everything|it|me sorted)|all set|i'?m (?:done|set|sorted)|"
    r"nothing else|adios|hasta luego|hasta pronto|eso es todo|nada mas|au revoir|a bientot|c'?est tout|"
    r"tschuss|auf wiedersehen|das wars|das war'?s|das ist alles|ciao|arrivederci|e tutto|a presto|tchau|"
    r"ate logo|e tudo|so isso"
)
_HELLO = r"hi|hello|hey|hiya|good (?:morning|afternoon|evening)|hola|buenos dias|bonjour|salut|hallo|guten tag|ciao|buongiorno|ola|oi|bom dia"
_YES = (
    r"yes|yeah|yep|yup|sure|ok(?:ay)?|correct|right|exactly|that'?s (?:right|correct|it)|si|claro|vale|"
    r"oui|d'?accord|ja|genau|richtig|sim|certo|esatto|va bene"
)
_NO = r"no|nope|non|nein|nao"
# Words that may stand beside thanks or a goodbye without asking anything.
_PRAISE = (
    r"great|brilliant|lovely|perfect|awesome|wonderful|amazing|fantastic|excellent|super|nice|cool|good|"
    r"very|so|much|a lot|lots|really|helpful|useful|that'?s|that is|it|this|was|is|you'?re|you are|"
    r"the best|a star|ok(?:ay)?|alright|all right|well|then|and|for|your|help|everything|all|me|sounds?|"
    r"pretty|fine|works|looks|quite|"
    r"muchas|muchisimas|mil|genial|perfecto|estupendo|muy|amable|util|bueno|todo|por|tu|ayuda|"
    r"beaucoup|parfait|genial|top|tres|utile|bien|c'?est|pour|ton|votre|aide|"
    r"schon|sehr|toll|perfekt|prima|hilfreich|fur|die|hilfe|alles|"
    r"mille|perfetto|ottimo|molto|utile|bene|tutto|per|l'?aiuto|"
    r"muito|muita|perfeito|otimo|util|tudo|pela|ajuda|isso"
)
_SOCIAL = {
    "thanks": re.compile(rf"\b(?:{_THANKS})\b"),
    "bye": re.compile(rf"\b(?:{_BYE})\b"),
    "hello": re.compile(rf"^\W*(?:{_HELLO})\b"),
}
_ONLY_SOCIAL = re.compile(rf"^(?:\W|\b(?:{_THANKS}|{_BYE}|{_HELLO}|{_YES}|{_NO}|{_PRAISE})\b)*$")
_ONLY_YES = re.compile(rf"^\W*(?:{_YES})\b\W*(?:please|(?:{_THANKS}))?\W*$")
_ONLY_NO = re.compile(rf"^\W*(?:{_NO})\b\W*(?:(?:{_THANKS}))?\W*$")


def social(text: str) -> Social | None:
    """What a message that says nothing else is: thanks, goodbye, hello, "yes" (or praise: "sounds good")
    or "no"; else None."""
    folded = fold(text)
    if _ONLY_YES.match(folded):
        return "yes"
    if _ONLY_NO.match(folded):
        return "no"
    if not _ONLY_SOCIAL.match(folded):
        return None
    for kind in ("thanks", "bye", "hello"):
        if _SOCIAL[kind].search(folded):
            return kind
    # "Sounds good.", "That's perfect.": agreement, unless asked ("is that good?").
    return None if folded.rstrip().endswith("?") else "yes"


# "the cheapest", "costs the least", in the six languages.
_CHEAPEST = re.compile(
    r"\b(?:cheapest|cheaper|lowest(?:[- ]priced)?|least expensive|least|best (?:price|deal|fare|value)|"
    r"most affordable|lowest (?:price|fare|cost)|"
    r"mas barat[oa]s?|cuesta(?:n)? menos|costaba(?:n)? menos|mas economic[oa]s?|menor precio|mejor precio|"
    r"moins ch[e]re?s?|coute(?:nt)? le moins|coutait le moins|meilleur prix|meilleur marche|"
    r"gunstigste[nrs]?|billigste[nrs]?|am gunstigsten|am billigsten|preiswerteste[nrs]?|"
    r"piu economic[oi]|piu economica|costa(?:va)? meno|meno car[oa]|piu conveniente|miglior prezzo|"
    r"mais barat[oa]s?|mais em conta|custa(?:va)? menos|mais economic[oa]s?|melhor preco)\b"
)
_DEAREST = re.compile(
    r"\b(?:most expensive|priciest|dearest|mas car[oa]|plus cher|teuerste[nrs]?|piu car[oa]|mais car[oa])\b"
)
_ORDINALS = {
    1: r"first|1st|primer[oa]?|premier|premiere|erste[nrs]?|prim[oa]|primeir[oa]",
    2: r"second|2nd|segund[oa]|deuxieme|seconde?|zweite[nrs]?|second[oa]",
    3: r"third|3rd|tercer[oa]?|troisieme|dritte[nrs]?|terz[oa]|terceir[oa]",
    -1: r"last|ultim[oa]|dernier|derniere|letzte[nrs]?",
}
_ORDINAL = {
    n: re.compile(rf"\b(?:the|el|la|le|der|die|das|il|lo|o|a)\s+(?:{words})\b(?!\s+(?:time|day|night|week))")
    for n, words in _ORDINALS.items()
}
# Words that point back at results already shown.
_BACK = re.compile(
    r"\b(?:again|remind me|(?:you|u) (?:found|showed|gave|suggested|mentioned|listed|had)|you'?ve (?:found|shown)|"
    r"(?:did|have) you (?:find|found|show|shown)|of (?:those|them|these|the ones)|those (?:ones|results|options)|"
    r"which (?:one|of)|the ones you|"
    r"otra vez|de nuevo|recuerd\w*|encontraste|mostraste|de esos|de esas|entre esos|entre esas|"
    r"encore une fois|rappel\w*|as trouve|avez trouve|as montre|avez montre|parmi (?:ces|les)|"
    r"nochmal|noch einmal|noch mal|von vorhin|gefunden|gezeigt|erinner\w*|"
    r"di nuovo|ricord\w*|avevi trovato|hai trovato|mostrato|tra quest\w*|tra quell\w*|rivedere|rivedi|"
    r"rimostr\w*|outra vez|mais uma vez|"
    r"revoir|remontre\w*|volver a ver|vuelve a mostrar\w*|ver de novo|mostra de novo|"
    r"de novo|novamente|lembr\w*|mostrou|encontrou|entre esses|entre essas)\b"
)
# A question about what the results cost or were, in the past: "what did the flights cost?"
_WHAT_WERE = re.compile(
    r"\b(?:what (?:did|do) (?:the|those|they|these|it|that)\b.{0,30}\bcost|how much (?:was|were|did|are|is) "
    r"(?:the|those|they|these|it|that)|what (?:were|was) (?:the|those|these)\b.{0,25}\b(?:prices?|costs?|"
    r"options?|fares?|rates?|results?)|what (?:were|was) (?:those|the) prices?|"
    r"cuanto costaba|cuanto costaban|cuanto salia|cuanto salian|cuanto eran|"
    r"combien coutai(?:en)?t|combien (?:etaient|etait)|c'?etait combien|combien c'?etait|"
    r"was (?:hat|haben|hatte|hatten)\b.{0,30}\bgekostet|wie teuer war(?:en)?|"
    r"quanto costava(?:no)?|quanto erano|quanto custava(?:m)?|quanto eram)\b"
)
_SHOW_AGAIN = re.compile(
    r"\b(?:show|list|give|tell)(?: me)? (?:the|those|these|them)\b.{0,30}\bagain\b|"
    r"\b(?:zeig|muestra|montre|mostra|mostre)\w*\b.{0,40}\b(?:nochmal|noch einmal|otra vez|de nuevo|encore|"
    r"di nuovo|de novo|novamente)\b"
)


def pick(text: str) -> Pick | None:
    """Which result a recall picks: the cheapest, the dearest, or the n-th shown (1, 2, 3, or -1: the last)."""
    folded = fold(text)
    if _CHEAPEST.search(folded):
        return "cheapest"
    if _DEAREST.search(folded):
        return "dearest"
    for n, pattern in _ORDINAL.items():
        if pattern.search(folded):
            return n
    return None


def found_before(text: str) -> bool:
    """Whether the message asks what was found or shown before ("what hotels did you find?", "show me
    the flights again"), not only for the cheapest of something."""
    folded = fold(text)
    return bool(_BACK.search(folded) or _WHAT_WERE.search(folded) or _SHOW_AGAIN.search(folded))


def recall_cue(text: str) -> bool:
    """Whether the message asks about results already shown, by its words alone."""
    folded = fold(text)
    return bool(
        _CHEAPEST.search(folded)
        or _DEAREST.search(folded)
        or _BACK.search(folded)
        or _WHAT_WERE.search(folded)
        or _SHOW_AGAIN.search(folded)
        or any(p.search(folded) for p in _ORDINAL.values())
    )


# A question of its own, not "what about ...?".
_QUESTION_WORD = re.compile(
    r"^\W*(?:(?:so|and|but|ok|okay|also|hmm|well|then|y|et|und|e|ma|pero|mais|aber|entonces|alors|dann|"
    r"quindi|entao)\W+)*(?:whats|hows|wheres|whos|whens|(?:what|how)(?!\s+about\b)|is|are|was|were|do|does|did|can|could|should|would|will|"
    r"why|when|where|which|who|any|anything|que|como|donde|cuando|cual|cuales|quien|hay|es|esta|vale|merece|"
    r"est ce|quel(?:le)?s?|comment|ou|pourquoi|combien|y a t il|faut il|vaut|peut on|welche[rsmn]?|was|wie|"
    r"wo|wann|warum|gibt|ist|sind|lohnt|kann|cosa|come|dove|quando|quale|quali|perche|ce|vale|conviene|"
    r"onde|porque|qual|quais|o que|tem|e|compensa)\b"
)


# "What about Porto?", "how about a museum?", "¿y en mayo?": a change of the last search, asked.
_WHAT_ABOUT = re.compile(
    r"^\W*(?:and\s+)?(?:what|how)\s+about\b|^\W*(?:y|et|und|e)\s+(?:si|wenn|se)\b|"
    r"^\W*(?:y|et|und|e)?\s*(?:que tal|et si|und wenn|e se|e que tal|o que acha)\b(?!\s+(?:es|esta|son|e)\b)"
)


# Words a change may open with: "Thanks, and what about the 9th?", "Cool. And the day after?".
_ACK = re.compile(
    r"^\W*(?:(?:thanks|thank you|ok|okay|alright|all right|cool|great|good|nice|yes|yeah|yea|sure|hmm|well|"
    r"gracias|vale|merci|danke|grazie|obrigad[oa]|perfect|perfecto|parfait|perfekt|perfetto|perfeito)\W+)*"
)


def changes_asked(text: str) -> bool:
    """Whether ``text`` asks for a change of the last search ("what about the 9th?", "and Rome?"), after
    any thanks or "ok" it opens with."""
    rest = fold(text)[_ACK.match(fold(text)).end() :]  # type: ignore[union-attr]
    if _WHAT_ABOUT.match(rest):
        return True
    return bool(re.match(r"(?:and|y|et|und|e)\b", rest)) and not _QUESTION_WORD.match(rest)


def is_question(text: str) -> bool:
    """Whether ``text`` asks a question of its own ("Is Porto nice?", "Dónde conviene alojarse?"), not
    "what about Porto?"."""
    stripped = text.strip()
    folded = fold(stripped)
    if changes_asked(stripped):
        return False
    return stripped.endswith("?") or stripped.startswith("¿") or bool(_QUESTION_WORD.match(folded))


_REQUEST = re.compile(
    r"\b(?:find|book|search|look (?:for|up)|looking for|check(?![- ]?(?:in|out)\b)|get (?:me|us)|show me|give me|"
    r"(?:i|we) (?:need|want|would like)|(?:i|we)d like|(?:i|we)ll need|reserve|can you (?:find|get|book|check|look)|"
    r"busca|buscar|buscame|encuentra|reserva|reservar|quiero|queremos|necesito|necesitamos|"
    r"cherche|trouve|trouvez|reserve|je veux|il me faut|j'?ai besoin|"
    r"such|suche|finde|buche|brauche|brauchen|mochte|hatte gern|"
    r"procura|procure|quero|queremos|preciso|precisamos|reservar|"
    r"cerca|cercami|trova|trovami|prenota|voglio|vorrei|mi serve|ho bisogno)\b"
)


def is_request(text: str) -> bool:
    """Whether ``text`` asks outright for something to be found or booked."""
    return bool(_REQUEST.search(fold(text)))


# Asking to book or reserve ("reserve the hotel you found", "I need to book for 2 days from the 10th").
_BOOKS = re.compile(r"\b(?:book|booking|reserv\w*|buch(?:en|e|ung)|prenot\w*)\b")


def books(text: str) -> bool:
    """Whether ``text`` asks to book or reserve something."""
    return bool(_BOOKS.search(fold(text)))


# Asking for other results of the same search: "anything else?", "any others?", "what else can you find?".
_AGAIN = re.compile(
    r"\b(?:another|something else|anything else|what else|any others?|other (?:options?|ones?|flights?|"
    r"hotels?|choices?|results?|attractions?|places?|museums?|parks?)|something different|different (?:one|"
    r"flight|hotel|option)|more options|otra opcion|otro|otros|otras|algo mas|autre|autres|quelque chose "
    r"d'autre|andere[sn]?|noch etwas|sonst noch|outra|outro|outros|outras|algo mais|altr[oaie]|"
    r"qualcos'altro)\b"
)


def asks_again(text: str) -> bool:
    """Whether ``text`` asks for other results of the same search ("Anything else? Another museum?")."""
    return bool(_AGAIN.search(fold(text)))


# Asking for things to be found and listed ("can you find me a museum?", "show me some attractions").
_FIND = re.compile(
    r"\b(?:find|finding|search|look (?:for|up)|looking for|show|get me|suggest|recommend|list|"
    r"busca\w*|encuentra\w*|muestra\w*|recomienda\w*|sugiere\w*|cherche\w*|trouve\w*|montre\w*|"
    r"recommande\w*|suggere\w*|such\w*|finde\w*|zeig\w*|empfiehl\w*|procur\w*|encontr\w*|mostr\w*|"
    r"recomend\w*|sugir\w*|cerc\w*|trov\w*|consigli\w*|suggeris\w*)\b"
)


def asks_to_find(text: str) -> bool:
    """Whether ``text`` asks for things to be found or listed ("Could you find me some attractions?")."""
    return bool(_FIND.search(fold(text)))


# Asking how to get somewhere ("how do I get from the airport to the centre?", "¿cómo llego ...?").
_GETTING_THERE = re.compile(
    r"\b(?:how (?:do|can|should|would|to) (?:i |we |you |one )?(?:get|go|travel|reach)|best way (?:to|from|into)|"
    r"getting (?:from|to|into)|como (?:llego|llegar|voy|ir|chego|chegar|vou)|comment (?:aller|me rendre|"
    r"rejoindre|se rendre|aller)|wie (?:komme|kommt|kommen|gelange|fahre)|come (?:arrivo|arrivare|raggiungo|"
    r"raggiungere|vado|andare|muoversi))\b"
)


def getting_there(text: str) -> bool:
    """Whether ``text`` asks how to get somewhere, a guide's transport question."""
    return bool(_GETTING_THERE.search(fold(text)))


# Asking what there is ("are there any museums?", "some attractions"), not about one thing.
_SOME = re.compile(
    r"\b(?:any|some|a few|algun[oa]s?|quelques|irgendwelche|einige|alguns|algumas|qualche|alcun[ie])\b"
)


def asks_for_some(text: str) -> bool:
    """Whether ``text`` asks what there is of something ("Are there any museums?")."""
    return bool(_SOME.search(fold(text)))


# "for those dates", "same dates", "for the whole trip": the trip's days, said without a date.
_TRIP_DAYS = re.compile(
    r"\b(?:(?:those|these|the same|same|our|my) (?:dates|days|nights)|(?:the )?whole (?:trip|stay|stretch|time)|"
    r"that (?:week|stretch|stay|trip)|for the (?:trip|stay)|during (?:my|our|the) (?:stay|trip)|"
    r"(?:esas|estas|las mismas|mismas) fechas|(?:esos|los mismos) dias|todo el viaje|toda la estancia|"
    r"(?:ces|les memes|memes) dates|(?:ces|les memes) jours|tout le sejour|"
    r"(?:diese|dieselben|gleichen|selben) (?:tage|daten|termine)|die ganze reise|den ganzen aufenthalt|"
    r"(?:quelle|queste|stesse|le stesse) date|(?:quei|questi|stessi) giorni|tutto il soggiorno|"
    r"(?:essas|estas|as mesmas|mesmas) datas|(?:esses|estes|os mesmos) dias|toda a estadia)\b"
)


def trip_days(text: str) -> bool:
    """Whether ``text`` means the trip's days without giving them ("a hotel for those dates")."""
    return bool(_TRIP_DAYS.search(fold(text)))


# Asking for a day-by-day plan, or what to do with the days ("plan", "lay out", "what can I squeeze in").
_PLAN = re.compile(
    r"\b(?:plan|plans|planning|itinerary|day by day|schedule|organi[sz]e|map out|lay out|layout|spend|squeeze|"
    r"what (?:should|can|could|shall|to) (?:i |we )?(?:do|see|visit)|things to do|give me|"
    r"planea|planifica|planear|itinerario|organiza|organizame|que (?:ver|hacer|visitar)|pasar|"
    r"planifie|planifier|organise|organisez|programme|itineraire|que (?:voir|faire|visiter)|passer|"
    r"plane|planen|plan|reiseplan|route|was (?:soll|kann|sollte) (?:ich|man|wir)|verbringen|"
    r"pianifica|organizza|organizzami|programma|cosa (?:vedere|fare|visitare)|passare|"
    r"planeja|planeje|roteiro|monte|organiza|o que (?:ver|fazer|visitar)|passar)\b"
)


def plan_cue(text: str) -> bool:
    """Whether ``text`` asks for a plan or for what to do with its days ("plan 2 days there")."""
    return bool(_PLAN.search(fold(text)))


# What a place is like, as a whole: "what's Hamburg like?", "is Vancouver worth it?", "¿qué tal es
# Cancún?", "com'è Nizza?" (read on the lower-cased text, accents kept).
_ABOUT_PLACE = re.compile(
    r"\bwhat(?:'s| is| are)\b.{1,40}\blike\b|\bhow is\b|\bis\b.{1,40}\bworth\b|\bworth (?:it|a visit|visiting|seeing)\b|"
    r"\btell me about\b|\b(?:know|need to know) about\b|\bgood (?:summer |winter )?destination\b|"
    r"\bqué tal (?:es|está)\b|\bcómo es\b|\bvale la pena\b|\bmerece la pena\b|\bháblame de\b|"
    r"\bcomment est\b|\bc'est comment\b|\bvaut le coup\b|\bvaut la peine\b|\bparle-moi de\b|"
    r"\bwie ist\b|\blohnt sich\b|\blohnt es sich\b|\berzähl mir von\b|"
    r"\bcom'è\b|\bcome è\b|\bmerita\b|\bparlami di\b|"
    r"\bcomo é\b|\bvale a pena\b|\bcompensa\b|\bfala-me de\b"
)


def about_place(text: str) -> bool:
    """Whether ``text`` asks what a place is like, as a whole ("What's Hamburg like for a weekend?")."""
    return bool(_ABOUT_PLACE.search(text.lower()))


# A day-by-day plan asked for outright, with or without its days ("plan it for me day by day").
_PLAN_ASKED = re.compile(
    r"\b(?:plan (?:it|that|this|them|those|my|our|the|a|me|for)|itinerary|day by day|day-by-day|"
    r"planea(?:lo|me)?|planifica|itinerario|organiza(?:me|lo)|plan(?:ifie|ifiez)|itineraire|programme|"
    r"plane (?:mir|uns)|reiseplan|tagesplan|pianifica|organizza(?:mi)?|programma|"
    r"planeja|roteiro|organiza)\b"
)


def plan_asked(text: str) -> bool:
    """Whether ``text`` asks for a day-by-day plan outright ("ok, plan it for me day by day")."""
    return bool(_PLAN_ASKED.search(fold(text)))


_FORETOLD = re.compile(
    r"\b(?:will (?:it|there)|(?:is|are) (?:it|there) going to|va a (?:llover|nevar|hacer)|"
    r"va-t-il|wird es|vai (?:chover|nevar|fazer)|piovera|nevichera)\b"
)


def foretold(text: str) -> bool:
    """Whether ``text`` asks what the weather will do ("will there be snowfall this month?"), not when
    to go ("is April a good month for it?")."""
    return bool(_FORETOLD.search(fold(text)))
