"""The weather_forecast tool: one declaration (see rag/tools/spec.py)."""

from connectors.models import WeatherDay
from connectors.params import WeatherForecastParams
from rag.tools.spec import ToolSpec

SPEC = ToolSpec(
    name="weather_forecast",
    description="Daily weather forecast for a place, up to 16 days ahead.",
    params=WeatherForecastParams,
    result=WeatherDay,
    freshness=3 * 3600,
    labels={
        "en": "the forecast",
        "es": "el pronóstico del tiempo",
        "fr": "la météo",
        "de": "die Wettervorhersage",
        "pt": "a previsão do tempo",
        "it": "le previsioni meteo",
    },
    result_labels={
        "en": "weather forecast",
        "es": "pronóstico del tiempo",
        "fr": "prévisions météo",
        "de": "Wettervorhersage",
        "pt": "previsão do tempo",
        "it": "previsioni meteo",
    },
    asks={
        "en": {
            "start_date": "which day the forecast should start (forecasts reach 16 days ahead)",
        },
        "es": {
            "city": "de qué lugar quieres el pronóstico",
            "start_date": "desde qué día quieres el pronóstico (llega a 16 días vista)",
        },
        "fr": {
            "city": "pour quel lieu vous voulez la météo",
            "start_date": "à partir de quel jour vous voulez la météo (elle porte sur 16 jours)",
        },
        "de": {
            "city": "für welchen Ort du die Vorhersage möchtest",
            "start_date": "ab welchem Tag du die Vorhersage möchtest (sie reicht 16 Tage voraus)",
        },
        "pt": {
            "city": "para que lugar quer a previsão",
            "start_date": "a partir de que dia quer a previsão (chega a 16 dias)",
        },
        "it": {
            "city": "per quale luogo vuoi le previsioni",
            "start_date": "da quale giorno vuoi le previsioni (arrivano a 16 giorni)",
        },
    },
    offered=True,
    horizon_days=16,
    from_trip=frozenset({"city"}),
    nouns={
        "en": ("weather", "forecast"),
        "es": ("tiempo", "clima"),
        "fr": ("météo", "meteo"),
        "de": ("wetter", "wettervorhersage"),
        "pt": ("previsão", "tempo"),
        "it": ("previsione", "meteo"),
    },
    recall=r"\bweather\b|forecast|\brain\b",
    routing={
        "threshold": 0.76,
        "keyword_threshold": 0.64,
        "command": "/weather",
        "args": ["city"],
        "keywords": [
            r"\bw(ea|e)th?er\b|\bwether\b|\bwetter\b|\bm(é|e)t(é|e)o\b|\btiempo\b|\bprevis(ã|a)o\b|forecast|forcast|\brain(ing|y)?\b|\bsnow(ing)?\b|\bsunny\b|temperature|how (hot|cold|warm)|(will it|going to) be (super |very |really )?(hot|cold|warm|sunny|rainy|windy)|umbrella|\bstorms?\b|\bwind(y)?\b|☀|🌧|⛅|☔",
            r"\bllover(á|a)?\b|\bllueve\b|\blluvia\b|\bpron(ó|o)stico\b|\bpleuvoir\b|\bpleut\b|\bpluie\b|\bpr(é|e)visions?\b|\bregnet\b|\bregnen\b|\bregenschirm\b|\b(wetter)?vorhersage\b|\bchover\b|\bchove\b|\bchuva\b|\bpioggia\b|\bpiove(r(à|a))?\b|\bprevisioni\b|\btemperaturas?\b|\btemp(é|e)ratures?\b|\btemperaturen\b",
            r"\bparaguas\b|\bparapluie\b|\bguarda-chuva\b|\bombrello\b|\bnevar(á|a)?\b|\bnieva\b|\bneiger?\b|\bschneit\b|\bschneien\b|\bnevar\b|\bnevicher(à|a)\b|\bsoleado\b|\bensoleill(é|e)\b|\bsonnig\b|\bensolarado\b|\bsoleggiato\b|qu(é|e) tiempo (har(á|a)|va a hacer|hace)|quel temps|wie wird das wetter|(como|que) tempo (est(á|a)|vai estar|fica|faz|far(á|a)|vai fazer)|como (est(á|a)|vai estar|fica) o tempo|che tempo (fa|far(à|a))",
        ],
        "negative": [
            r"in (january|february|march|april|may|june|july|august|september|october|november|december)\b(?!\s*\d)",
            "(rainy|dry|wet|monsoon|hurricane|typhoon) season",
            "climate|on average|in (the )?(winter|summer|spring|autumn|fall)|what to (pack|wear)|best time|which month|what month|best month|best weather|dry weather",
            r"\b(en|in|im|em|a|ad|au mois d'|no m(ê|e)s de|nel mese di)\s*(enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|octubre|noviembre|diciembre|janvier|f(é|e)vrier|mars|avril|mai|juin|juillet|ao(û|u)t|septembre|octobre|novembre|d(é|e)cembre|januar|februar|m(ä|a)rz|juni|juli|oktober|dezember|janeiro|fevereiro|mar(ç|c)o|maio|junho|julho|setembro|outubro|novembro|dezembro|gennaio|febbraio|aprile|maggio|giugno|luglio|settembre|ottobre|dicembre)\b(?!\s*\d)",
            r"temporada de lluvias|(é|e)poca de lluvias|saison des pluies|regenzeit|esta(ç|c)(ã|a)o das chuvas|stagione delle piogge|\bclimat\b|\bklima\b|mejor (é|e)poca|meilleure (p(é|e)riode|saison)|beste reisezeit|melhor (é|e)poca|periodo migliore|\bde media\b|\ben moyenne\b|\bdurchschnittlich\b|\bem m(é|e)dia\b|\bin media\b",
            r"\b(en|in|im|em|l'|au|d')\s*(invierno|verano|primavera|oto(ñ|n)o|hiver|(é|e)t(é|e)|printemps|automne|winter|sommer|fr(ü|u)hling|herbst|inverno|ver(ã|a)o|outono|estate|autunno)\b|qu(é|e) (llevar|ponerme|meter en la maleta)|que (mettre|emporter) dans|was (soll ich )?(einpacken|anziehen|mitnehmen)|o que levar|cosa (portare|mettere in valigia)",
        ],
        "required": ["city"],
        "params": {
            "city": "place_name",
            "start_date": "start_date",
            "days": "forecast_days",
        },
        "ask": {
            "city": "which place you want the forecast for",
        },
        "examples": [
            "weather in Tokyo tomorrow",
            "will it rain in Lisbon this weekend",
            "forecast for Oslo",
            "how hot will it be in Dubai next week",
            "do I need an umbrella in London today",
            "is it going to snow in Montreal on Saturday",
            "temperature in Paris for the next 3 days",
            "what's the weather going to be like in Rome on friday",
            "what's the forecast for tomorrow",
            "will it rain today",
            "is it going to be sunny this weekend",
            "weather for the next few days",
            "qué tiempo hará en Madrid mañana",
            "va a llover en Sevilla este fin de semana",
            "pronóstico del tiempo para Lisboa",
            "météo à Paris demain",
            "va-t-il pleuvoir à Lyon ce week-end",
            "prévisions météo pour Nice",
            "Wetter in München morgen",
            "wird es am Wochenende in Hamburg regnen",
            "Wettervorhersage für Köln",
            "previsão do tempo em Lisboa amanhã",
            "vai chover no Porto este fim de semana",
            "meteo a Firenze domani",
            "pioverà a Milano nel weekend",
            "previsioni del tempo per Roma",
        ],
    },
)
