"""The words the extractive composer reads questions with: stop words, topics, months. Data, pure.

A question is matched against English guides, in any of Wayfarer's six languages, so each topic has
*triggers* (the words a traveller asks with, in every language, accent-free) and *words* (the English
words the guides answer with). "¿Qué tiempo hará en Tokio?" triggers "weather", whose words (rain,
humid, °C, summer...) find the guide's sentences on seasons. Triggers of several words ("get around",
"fin de semana") are matched as phrases. Everything here is folded (lower case, accents removed) when
read by rag.chat.sentences; plural "s" is stripped there too, so list one form.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from connectors.text import fold
from rag.i18n.calendar_words import LANGUAGES, english_month, month_names

# Function words and question words of en es fr de pt it: they carry no topic.
STOPWORDS = frozenset(
    """
    a about after all also am an and any are as at be been before best better but by can could did do
    does doing for from get give go going good great had has have how i if in into is it its just know
    like look looking may me might more most much must my need next nice of on one or our please recommend should show
    so some tell than that the their them then there these they thing think this those to trip travel
    city town place country
    travelling traveling us very visiting want was we well were what when where which while who why will
    with worth would you your
    al algo como con cual cuales cuando de del donde el ella en entre es esta estan este esto hay la las
    le les lo los mas me mejor mi muy nos o para pero por puedo puede que quiero se ser si sin sobre su
    sus te tu un una uno unos y ya viaje viajar debo deberia necesito tengo hace hacen
    au aux avec ce ces cette comment dans des du elle est et il je la le les leur ma mais me meilleur
    mieux mon ne nous on ou par pas peut peux pour quand que quel quelle quels qui sa se ses son sont sur
    ta te toi ton tu un une vais veux vous voyage voyager dois devrais faut fait
    am auf aus bei bin das dem den der des die ein eine einem einen einer es fur gibt ich ihr im ist kann
    mich mit nach nicht oder sein sie sind soll und uns von was welche welcher wie wir wo zu zum zur
    besser beste reise reisen muss sollte brauche
    ao aos as com da das de do dos e em esta este eu isso mais melhor meu minha na nas no nos num numa o
    onde os ou para pela pelo pode posso quais qual quando que se sem seu sua um uma vou viagem devo
    preciso faz
    agli ai alla alle allo che chi ci come con cosa dal dalla degli dei del della delle di dove gli ha
    ho il in io la le lo ma meglio mi nel nella noi per piu posso puo quale quali quando se si sono su
    sul sulla un una uno vorrei viaggio dovrei serve fa
    """.split()
)


@dataclass(frozen=True, slots=True, eq=False)
class Topic:
    """A subject travellers ask about; ``name`` keys its label in the catalogue (topic.<name>)."""

    name: str
    triggers: Sequence[str]  # question words and phrases, any language
    words: Sequence[str]  # English words of the guides' sentences that answer it


# Topics on which the general guides' advice answers for any place ("do I need a visa for Porto?"); on
# the others (sights, food, weather...) only the place's own guide does.
GENERAL_TOPICS = frozenset({"visas", "packing", "money", "safety", "children"})

TOPICS: tuple[Topic, ...] = (
    Topic(
        "weather",
        (
            "weather climate rain rainy raining temperature temperatures hot cold humid humidity snow sunny "
            "forecast warm chilly tiempo clima lluvia llueve calor frio meteo climat pluie chaud froid "
            "wetter klima regen kalt heiss chuva quente tempo pioggia caldo freddo snowy snowing snowfall "
            "colder warmer hotter cooler foggy fog hail cloudy cloud stormy storm overcast windy wind freezing "
            "frost thunderstorm drizzle"
        ).split()
        + ["what to expect weather", "quel temps", "que tiempo", "conditions like", "weather conditions"],
        (
            "weather climate rain rainy rainfall temperature °c °f degree hot cold cool warm mild humid humidity "
            "dry wet snow sunny sunshine sun season monsoon typhoon hurricane storm heat heatwave spring "
            "summer autumn fall winter shower fog wind windy freezing"
        ).split(),
    ),
    Topic(
        "when",
        (
            "when season seasons month months cuando epoca temporada quand saison wann reisezeit "
            "jahreszeit monat quando estacao stagione periodo mese blossom blossoms foliage"
        ).split()
        + [
            "best time",
            "time to go",
            "time to visit",
            "best time to visit",
            "best time to go",
            "mejor momento",
            "meilleure periode",
            "quel mois",
            "quels mois",
            "beste zeit",
            "cherry blossom",
            "autumn leaves",
            "fall foliage",
            "periodo migliore per visitare",
            "mejor epoca para visitar",
            "melhor epoca para visitar",
            "meilleure periode pour visiter",
            "periodo migliore",
            "momento migliore",
            "mejor epoca",
            "melhor epoca",
            "melhor altura",
            "beste reisezeit",
        ],
        (
            "season month spring summer autumn fall winter crowd peak shoulder festival holiday blossom "
            "busy quiet price visit time weather climate hot cold cool warm mild dry rain rainy humid "
            "monsoon"
        ).split(),
    ),
    Topic(
        "food",
        (
            "eat eating food foods dish dishes restaurant restaurants cuisine dinner lunch breakfast drink "
            "drinks cafe coffee alcohol alcool alkohol alcol beer wine beber boire trinken bere "
            "comer comida restaurante platos plato cena almuerzo manger nourriture "
            "cuisine plat diner dejeuner essen gericht speisen kuche comer comida prato jantar almoco "
            "mangiare cibo cucina piatto piatti ristorante cena pranzo"
        ).split()
        + ["street food"],
        (
            "food eat dish restaurant cuisine meal dinner lunch breakfast drink bar cafe coffee market "
            "snack taste specialty local wine beer dessert street try trying tapas grill seafood"
        ).split(),
    ),
    Topic(
        "transport",
        (
            "transport transportation metro subway underground tube train trains bus buses taxi taxis tram "
            "uber airport transfer commute moverse transporte autobus tren aeropuerto deplacer transports "
            "aeroport verkehr bahn zug flughafen onibus trem aeroporto trasporti treno spostarsi"
        ).split()
        + [
            "get around",
            "getting around",
            "get from",
            "get to",
            "se deplacer",
            "transporte publico",
            "transports en commun",
            "offentliche verkehrsmittel",
            "mezzi pubblici",
            "me muevo",
            "moverme",
            "moverse por",
            "si sposta",
            "ci si muove",
            "mi sposto",
            "me deplacer",
            "comment circuler",
            "como me locomovo",
            "comment aller",
            "comment se rendre",
            "como llegar",
            "como ir",
            "wie komme ich",
            "wie kommt man",
            "come arrivare",
            "come andare",
            "como chegar",
            "como ir",
            "best way from",
            "best way to",
            "how do i get",
            "how do we get",
            "get into",
            "into town",
            "into the city",
            "from the airport",
            "to the airport",
            "cheapest way",
            "quickest way",
            "fastest way",
            "easiest way",
            "way from",
            "way to get",
            "weg von",
            "weg zum",
            "weg nach",
        ]
        + "muoversi fortbewegen bewegt locomover".split(),
        (
            "transport metro subway train bus taxi tram ferry card ticket line station airport uber walk "
            "walking bike rail pass ride express transit minute"
        ).split(),
    ),
    Topic(
        "costs",
        (
            "cost costs price prices budget cheap expensive afford spend pricey coste costo precio "
            "presupuesto barato caro cout prix cher kosten preis teuer gunstig billig custo preco orcamento "
            "prezzo economico gasta gastar gasto gastos ausgeben depenser spendere spesa"
        ).split()
        + ["how much", "cuanto cuesta", "combien", "wie viel", "quanto costa", "quanto custa"],
        (
            "cost price budget cheap expensive ¤money daily range meal hostel pay spend fee free tip "
            "cheaper dearer mid"
        ).split(),
    ),
    Topic(
        "stay",
        (
            "stay staying neighbourhood neighbourhoods neighborhood neighborhoods area areas district "
            "districts hotel hotels accommodation sleep alojarse alojamiento barrio barrios zona hotel "
            "dormir loger logement quartier quartiers hotel ubernachten unterkunft viertel ficar hospedar "
            "bairro alloggio alloggiare quartiere soggiornare quarter quarters quartieri"
        ).split()
        + [
            "where to stay",
            "part of town",
            "part of the city",
            "parts of town",
            "parts of the city",
            "which part",
            "what part",
            "good base",
            "best base",
            "a base",
            "base ourselves",
            "base myself",
            "where to base",
        ],
        (
            "neighbourhood neighborhood area district quarter hotel base stay hostel accommodation quiet "
            "central convenient connected residential"
        ).split(),
    ),
    Topic(
        "sights",
        (
            "see sight sights sightseeing attraction attractions museum museums landmark landmarks temple "
            "visit ver visitar hacer museo voir visiter faire musee sehen besuchen sehenswurdigkeit "
            "sehenswurdigkeiten fazer museu vedere visitare fare gesehen unternehmen sehenswert imperdible "
            "imperdibles imperdivel imperdiveis incontournable incontournables imperdibile imperdibili "
            "park parks garden gardens beach beaches view views viewpoint viewpoints parque parques jardin "
            "playa playas vistas mirador parc parcs plage plages vue park strand aussicht praia praias parco "
            "giardino spiaggia panorama"
        ).split()
        + [
            "things to do",
            "what to do",
            "there to do",
            "to do in",
            "to do there",
            "can i do",
            "can we do",
            "should i do",
            "should we do",
            "que ver",
            "que hacer",
            "pontos turisticos",
            "no me puedo perder",
        ],
        (
            "museum temple shrine church palace park garden view viewpoint market tower gallery monument "
            "castle historic old walk tour sight visit square cathedral"
        ).split(),
    ),
    Topic(
        "safety",
        (
            "safe safety scam scams crime dangerous danger pickpocket pickpockets theft seguro seguridad "
            "peligroso estafa securite dangereux arnaque sicher sicherheit gefahrlich betrug "
            "seguranca perigoso golpe sicuro sicurezza pericoloso truffa sicura segura"
        ).split()
        + [
            "ville sure",
            "est sure",
            "une ville sure",
            "tap water",
            "drink the tap water",
            "drink tap water",
            "drink the water",
            "drinking water",
            "water safe",
            "agua del grifo",
            "eau du robinet",
            "leitungswasser",
            "acqua del rubinetto",
            "agua da torneira",
        ],
        (
            "safe safety scam crime pickpocket theft dangerous careful police emergency insurance "
            "valuable steal snatch snatcher trick beware fake counterfeit overcharge overpriced rob "
            "robbery mugging"
        ).split(),
    ),
    Topic(
        "visas",
        (
            "visa visas entry passport border customs visado pasaporte passeport visum reisepass einreise "
            "visto passaporte passaporto enter entrar entrer entrare einreisen eta"
        ).split()
        + ["entry requirements", "to get in", "autorizacion de entrada", "autorizacao"],
        "visa entry passport border customs eta esta evisa permit immigration consulate validity".split(),
    ),
    Topic(
        "packing",
        (
            "pack packing luggage suitcase wear clothes clothing llevar maleta equipaje ropa emporter "
            "valise bagage vetements packen koffer gepack kleidung levar bagagem roupa portare valigia "
            "bagaglio vestiti"
        ).split()
        + ["what to pack", "what to bring", "what to wear", "should i bring", "should i wear"],
        (
            "pack layer jacket shoe clothes clothing luggage bag umbrella sunscreen hat adapter scarf "
            "fleece sandal gloves socks raincoat"
        ).split(),
    ),
    Topic(
        "children",
        (
            "child children kid kids family families baby toddler nino ninos hijos familia bebe bebes enfant enfants "
            "famille kind kinder familie crianca criancas familia filhos bambino bambini famiglia figli"
        ).split(),
        "child children kid family playground baby toddler stroller zoo aquarium oceanarium beach".split(),
    ),
    Topic(
        "money",
        (
            "money cash card cards atm currency payment pay tip tipping haggle haggling bargain "
            "bargaining dinero efectivo tarjeta cajero propina regatear argent especes carte "
            "distributeur pourboire marchander geld bargeld karte trinkgeld feilschen handeln dinheiro "
            "cartao gorjeta pechinchar soldi contanti carta mancia contrattare regatea regateo regatean "
            "marchande marchandage feilscht contratta pechincha"
        ).split(),
        (
            "cash card atm currency pay payment tip tipping exchange bank contactless haggle bargain "
            "gratuity service rounding"
        ).split(),
    ),
    Topic(
        "duration",
        "weekend itinerary itinerario itineraire wochenende".split()
        + [
            "how long",
            "how many days",
            "few days",
            "long weekend",
            "fin de semana",
            "week end",
            "fim de semana",
            "cuantos dias",
            "combien de jours",
            "wie viele tage",
            "wie lange",
            "quanti giorni",
            "quantos dias",
        ],
        "day weekend itinerary covers short break".split(),
    ),
    Topic(
        "daytrips",
        "excursion excursions excursiones ausflug ausfluge tagesausflug tagesausfluge gita gite".split()
        + ["day trip", "day trips", "bate volta", "passeio de um dia", "escapada de un dia"],
        "day trip excursion".split(),
    ),
    Topic(
        "tips",
        (
            "advice consejos consejo conseils conseil tipps tipp ratschlage dicas dica consigli "
            "consiglio etiquette photo photos photograph photographs polite rude manners dress "
            "etiqueta fotos fotografias etiquette usages coutumes benimmregeln fotografieren galateo"
        ).split()
        + [
            "any tips",
            "some tips",
            "travel tips",
            "top tips",
            "tips for",
            "practical tips",
            "local tips",
            "book ahead",
            "book in advance",
            "in advance",
            "need to book",
            "reserve ahead",
            "is it ok to",
            "is it okay to",
            "allowed to",
            "se puede",
            "peut on",
            "darf man",
            "si puo",
            "pode se",
        ],
        "tip advice avoid worth book early".split(),
    ),
    Topic(
        "nightlife",
        (
            "nightlife party clubs club bars bar nocturna fiesta nocturne nachtleben noturna notturna "
            "discoteca"
        ).split()
        + ["going out", "vida nocturna", "vie nocturne", "vida noturna", "vita notturna"],
        "nightlife bar club pub cocktail clubbing dancing".split(),
    ),
)

MONTHS_EN = [english_month(n) for n in range(1, 13)]

# Folded month names of the six languages -> 1..12 (questions: "in April", "en abril", "im Mai"): CLDR's
# full names, and the English abbreviations but "mar" (the sea in Spanish, Italian and Portuguese).
MONTHS: dict[str, int] = {
    fold(name): number
    for lang in LANGUAGES
    for name, number in month_names(lang, abbreviated=lang == "en").items()
    if name != "mar"
}

# The northern season a month falls in, for a question month against "Spring (March-May)" in a guide.
SEASON_OF_MONTH = {
    1: "winter",
    2: "winter",
    3: "spring",
    4: "spring",
    5: "spring",
    6: "summer",
    7: "summer",
    8: "summer",
    9: "autumn",
    10: "autumn",
    11: "autumn",
    12: "winter",
}

# The seasons of the other languages, read as the English word the guides use ("Winter (June–August)"
# in Sydney's guide: a season is matched by name, never turned into northern months).
SEASON_WORDS = {
    **dict.fromkeys("invierno hiver winter inverno".split(), "winter"),
    **dict.fromkeys("verano ete sommer verao".split(), "summer"),
    **dict.fromkeys("primavera printemps fruhling".split(), "spring"),
    **dict.fromkeys("otono automne herbst outono autunno".split(), "autumn"),
}

# Words of a question that ask for a comparison between its places.
COMPARE_WORDS = frozenset(
    "vs versus compare comparison comparing better difference differences compared mejor comparar "
    "diferencia mieux comparer difference besser vergleich vergleichen unterschied melhor diferenca "
    "meglio confronto confrontare differenza".split()
)
# "or" in each language; "o"/"u" only between two named places (Portuguese "o" is an article).
OR_WORDS = frozenset("or ou oder oppure".split())
OR_WORDS_BETWEEN = frozenset("o u".split())
