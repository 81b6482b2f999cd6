"""Tours, activities and sights per city, pure: the Amadeus Tours and Activities v1 shape.

A city has tours (a sample of TEMPLATES) and sights: one for each kind of place a traveller asks for by
name (a museum, a park, a church, a castle, a stage, a viewpoint; a zoo, an aquarium or a theme park,
and a stadium, in cities of 250,000 people or more), drawn from SIGHTS. Each carries its place in
OpenTripMap's category tree (``kinds``, as OpenTripMap writes it: the branch's categories joined by
commas), which the OpenTripMap dialect serves and filters on and the Amadeus dialect, like Amadeus,
leaves out.

A destination city's activities have 7-digit ids; a gazetteer city's have 11 digits that spell its
geonames id and the activity's place in its list, so any id can be looked up without a registry.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from connectors.sandbox import money
from connectors.sandbox.data import Catalogue, City
from connectors.sandbox.geo import offset_point
from connectors.sandbox.rng import rng_for

# Cities without a river, lake or sea front worth a boat trip.
NO_WATER = frozenset(
    {"MAD", "MEX", "BOG", "JNB", "ADD", "NBO", "DEL", "KTM", "CUZ", "LAS", "MUC", "AMM", "SCL", "UKY"}
)


@dataclass(frozen=True, slots=True)
class Template:
    name: str
    short: str
    long: str
    hours: float
    price_eur: float
    water: bool = False
    kinds: str = "interesting_places"  # OpenTripMap's categories of the place, root first


TEMPLATES: tuple[Template, ...] = (
    Template("Old town walking tour of {c}", "Walk the historic heart of {c} with a licensed guide.",
             "Discover the squares, lanes and landmarks that shaped {c} on a relaxed walk with a licensed local guide. "
             "Hear the stories behind the monuments and get tips for the rest of your stay. Small groups, rain or shine.", 3, 25, kinds="interesting_places,historic,historic_districts"),
    Template("{c} food tasting tour", "Taste the classics of {country} cuisine across several local stops.",
             "Eat your way through {c} with a food-loving guide: street snacks, family-run kitchens and a dessert to finish. "
             "Tastings at five or six stops add up to a full meal. Vegetarian options on request.", 3.5, 65, kinds="tourist_facilities,foods,restaurants"),
    Template("Sunset boat cruise in {c}", "See {c} from the water as the sun goes down.",
             "Board a comfortable boat for an evening cruise past the sights of {c}. Commentary on board points out the "
             "landmarks, and a drink is included. Boarding starts 15 minutes before departure.", 1.5, 35, water=True, kinds="interesting_places,natural,water"),
    Template("Skip-the-line museum pass for {c}", "Priority entry to the most visited museums of {c}.",
             "Save hours of queuing with timed priority entry to the top museums and galleries of {c}. "
             "The pass is valid for 48 hours from first use and comes with a digital audio guide.", 2, 55, kinds="interesting_places,cultural,museums"),
    Template("{c} highlights bike tour", "Cycle between the highlights of {c} on quiet routes.",
             "Cover more ground than on foot on a guided bike ride through {c}. Routes follow bike lanes and quiet streets, "
             "with regular photo stops. Bike and helmet included; suitable for casual riders.", 3, 35, kinds="tourist_facilities,transport,bicycle_rental"),
    Template("Street art and hidden corners of {c}", "Murals, courtyards and local haunts off the usual path.",
             "Explore the creative side of {c}: murals, galleries and courtyards that most visitors miss. "
             "Your guide knows the artists and the neighbourhood stories behind the walls.", 2.5, 22, kinds="interesting_places,cultural,urban_environment,wall_painting"),
    Template("Day trip from {c} to the countryside", "A full day out of {c}: villages, views and a local lunch.",
             "Leave the city behind for landscapes and villages within easy reach of {c}. Travel by air-conditioned minibus, "
             "stop for a traditional lunch, and be back in town for the evening.", 9, 95, kinds="interesting_places,natural"),
    Template("Cooking class with a local chef in {c}", "Shop, cook and eat a {country} meal with a chef.",
             "Join a professional chef in {c} to cook three classic {country} dishes from scratch, then sit down to eat "
             "what you made. Recipes are sent after the class. Ingredients and drinks included.", 3.5, 85, kinds="tourist_facilities,foods,restaurants"),
    Template("Private guided tour of {c} with a local", "Your own guide and an itinerary shaped around you.",
             "Spend the day with a local who tailors the route to your interests, from history and architecture to food "
             "and shopping in {c}. Pick-up from your hotel; transport costs are not included.", 4, 160, kinds="interesting_places,other,tourist_object"),
    Template("{c} markets and local life tour", "Browse the busiest markets of {c} with a guide.",
             "See how {c} shops and eats: wander through the main markets, try seasonal produce and meet the traders. "
             "A relaxed morning tour that ends near public transport.", 3, 30, kinds="tourist_facilities,shops,marketplaces"),
    Template("Hop-on hop-off bus pass for {c}", "Unlimited rides on open-top buses past the main sights.",
             "Get around {c} at your own pace with a 24-hour hop-on hop-off pass. Buses stop at all the main sights, "
             "with recorded commentary in a dozen languages.", 24, 30, kinds="interesting_places,other,tourist_object"),
    Template("{c} by kayak", "Paddle past the sights of {c} with an instructor.",
             "A gentle guided kayak trip along the waterfront of {c}, suitable for beginners. Equipment, a safety briefing "
             "and dry bags are provided; wear clothes that can get wet.", 2.5, 55, water=True, kinds="interesting_places,natural,water"),
    Template("{c} night photography walk", "Learn to shoot the lights of {c} after dark.",
             "A photographer leads you to the best night views of {c} and helps you with exposure and composition. "
             "Any camera or phone works; tripods can be borrowed.", 2.5, 45, kinds="interesting_places,other,view_points"),
    Template("Traditional music and dance show in {c}", "An evening of {country} music and dance.",
             "Enjoy an intimate performance of traditional music and dance in {c}, with a drink included. "
             "Seats are assigned in order of booking.", 1.5, 40, kinds="interesting_places,cultural,theatres_and_entertainments,music_venues"),
    Template("Coffee and pastry tour of {c}", "The best cafés and bakeries of {c} in one morning.",
             "Start the day the local way: visit the cafés and bakeries that {c} residents love, with tastings at each stop "
             "and a guide who explains how coffee culture took root here.", 2.5, 38, kinds="tourist_facilities,foods,cafes"),
    Template("Rooftop dinner with a view of {c}", "A set dinner high above {c}.",
             "Dine on a terrace overlooking {c}, with a three-course set menu of seasonal {country} dishes. "
             "A window table is reserved in your name.", 2.5, 90, kinds="tourist_facilities,foods,restaurants"),
    Template("Family treasure hunt in {c}", "A self-guided game that turns {c} into a puzzle.",
             "Solve riddles and find clues around the centre of {c} with this family-friendly game on your phone. "
             "Play at your own pace; the hunt can be paused and resumed.", 2, 20, kinds="interesting_places,other,tourist_object"),
    Template("Helicopter flight over {c}", "A short scenic flight above {c}.",
             "Take off for a breathtaking scenic flight over {c} and its surroundings. The pilot narrates the sights; "
             "flights depend on the weather and can be rescheduled.", 0.5, 230, kinds="interesting_places,other,view_points"),
    Template("Sunrise viewpoint hike near {c}", "Catch the first light over {c} from a panoramic viewpoint.",
             "Meet your guide before dawn and hike to a viewpoint above {c} in time for sunrise. A light breakfast is served "
             "at the top. Moderate fitness required.", 4, 50, kinds="interesting_places,other,view_points"),
    Template("Evening bar crawl in {c}", "Meet other travellers in the best bars of {c}.",
             "Visit four bars in the liveliest district of {c} with a host who keeps the group together. "
             "A welcome drink and free entry to a club are included. Over 18s only.", 4, 28, kinds="tourist_facilities,foods,bars"),
)  # fmt: skip

# Sights by the kind of place they are: a city has one of each kind (BIG_CITY_ONLY in big cities only).
SIGHTS: dict[str, tuple[Template, ...]] = {
    "museum": (
        Template("{c} National Museum entry ticket", "The national collections of {country} in {c}.",
                 "Entry to the permanent collections of the national museum in {c}, from archaeology to modern "
                 "{country} art. Temporary exhibitions are included. Audio guides are available at the desk.", 2.5, 18,
                 kinds="interesting_places,cultural,museums,national_museums"),
        Template("{c} Museum of Fine Arts", "Paintings and sculpture from across the centuries in {c}.",
                 "See the finest collection of paintings, drawings and sculpture in {c}. Free lockers for bags. "
                 "Last entry one hour before closing.", 2, 15, kinds="interesting_places,cultural,museums,art_galleries"),
    ),
    "park": (
        Template("{c} Botanical Garden", "Glasshouses and gardens in the heart of {c}.",
                 "Wander through themed gardens and glasshouses of plants from every continent in {c}. Benches and a "
                 "café make it an easy half day. Paths are step-free.", 2, 8,
                 kinds="interesting_places,cultural,urban_environment,gardens_and_parks"),
        Template("Guided walk in the parks of {c}", "The green side of {c} with a naturalist guide.",
                 "Follow a naturalist through the largest parks of {c}, learning about their trees, birds and past. "
                 "Comfortable shoes recommended. Walks run in light rain.", 2, 15,
                 kinds="interesting_places,cultural,urban_environment,gardens_and_parks"),
    ),
    "religious": (
        Template("{c} Cathedral guided visit", "The cathedral of {c}, its chapels and its crypt.",
                 "A guide shows you the nave, the chapels and the crypt of the cathedral of {c}, and tells of those "
                 "who built it. Shoulders and knees must be covered. Visits pause during services.", 1.5, 12,
                 kinds="interesting_places,religion,churches,cathedrals"),
        Template("Temples and places of worship of {c}", "The sacred places of the faiths of {c} on one walk.",
                 "Visit the temples, churches and other places of worship of {c} with a guide who explains their rites "
                 "and buildings. Modest dress is required. Some sites ask for a small donation.", 3, 20,
                 kinds="interesting_places,religion,other_temples"),
    ),
    "historic": (
        Template("{c} Castle and ramparts", "Climb the old fortress above {c}.",
                 "Explore the walls, gates and courtyards of the castle that guarded {c} for centuries. Panels tell its "
                 "history in several languages. Uneven ground and steep stairs.", 2, 14,
                 kinds="interesting_places,historic,fortifications,castles"),
        Template("Royal palace of {c} tour", "State rooms and courtyards of the historic palace of {c}.",
                 "Walk through the state rooms, halls and courtyards of the palace of {c} with an audio guide. "
                 "Photography without flash is allowed. Large bags must be left at the entrance.", 2, 16,
                 kinds="interesting_places,architecture,historic_architecture,palaces"),
    ),
    "performing_arts": (
        Template("An evening at the {c} Opera House", "Opera and ballet on the grand stage of {c}.",
                 "See the season's opera or ballet at the opera house of {c}, with a seat in the stalls or the circle. "
                 "Doors open an hour before curtain. Smart casual dress is recommended.", 3, 75,
                 kinds="interesting_places,cultural,theatres_and_entertainments,opera_houses"),
        Template("Concert at the {c} Concert Hall", "Classical music in the main concert hall of {c}.",
                 "Hear the resident orchestra of {c} in a programme of classical favourites. Programmes are announced "
                 "each month. Latecomers are admitted at the interval.", 2, 45,
                 kinds="interesting_places,cultural,theatres_and_entertainments,concert_halls"),
    ),
    "landmark": (
        Template("{c} observation deck", "The best panorama of {c} from high above.",
                 "Take the lift to the observation deck for a sweeping view over {c} and its landmarks. Telescopes and "
                 "panels name what you see. Sunset slots sell out first.", 1, 20,
                 kinds="interesting_places,architecture,towers,observation_towers"),
    ),
    "amusement": (
        Template("{c} Zoo entry ticket", "Animals from every continent at the zoo of {c}.",
                 "Spend a day at the zoo of {c}: big cats, primates, a petting farm and daily feeding talks. Strollers "
                 "can be rented at the gate. Last admission two hours before closing.", 5, 24,
                 kinds="interesting_places,cultural,zoos"),
        Template("{c} Aquarium entry ticket", "Sharks, rays and coral reefs in {c}.",
                 "Walk through the tunnels and tanks of the aquarium of {c}, from local rivers to tropical reefs. "
                 "Feeding times are posted at the entrance. Fully accessible.", 2.5, 22,
                 kinds="interesting_places,cultural,aquariums"),
        Template("{c} theme park day pass", "Rides and shows for every age near {c}.",
                 "A full day of roller coasters, family rides and live entertainment at the theme park outside {c}. "
                 "Height limits apply on some rides. Lockers and food stalls on site.", 8, 45,
                 kinds="amusements,amusement_parks"),
    ),
    "sports": (
        Template("{c} stadium tour", "Behind the scenes at the biggest stadium of {c}.",
                 "See the dressing rooms, the players' tunnel and the pitch side of the biggest stadium of {c}, and the "
                 "trophies of its club. Tours do not run on match days. About an hour and a half.", 1.5, 25,
                 kinds="sport,stadiums"),
    ),
}  # fmt: skip
BIG_CITY_ONLY = frozenset({"amusement", "sports"})
BIG_CITY = 250_000
MIN_TOURS = 3
PRIVATE = "_"  # keys of the generator's own (OpenTripMap's kinds), left out of the Amadeus shape
KINDS = "_kinds"

COST_FACTOR = {1: 0.55, 2: 0.75, 3: 1.0, 4: 1.25, 5: 1.5}
GEO_ID_BASE = 10**10  # gazetteer cities' ids: GEO_ID_BASE + geonames id * 100 + index


def _duration(hours: float) -> str:
    if hours >= 24:
        return "1 day"
    if hours < 1:
        return f"{round(hours * 60)} minutes"
    return f"{hours:g} hours"


def _sights(city: City) -> list[Template]:
    """One sight of each kind the city has, its pick among the kind's drawn per city."""
    rng = rng_for("sights", city.geoname_id or city.city_code)
    return [
        options[rng.randrange(len(options))]
        for kind, options in SIGHTS.items()
        if kind not in BIG_CITY_ONLY or city.population >= BIG_CITY
    ]


@lru_cache(maxsize=256)
def activities_for_city(city: City) -> tuple[dict[str, Any], ...]:
    """9-20 activities for the city, without self links: its tours (bigger, pricier cities get more),
    then its sights. Each holds its OpenTripMap kinds under KINDS, a key of the generator's own."""
    rng = rng_for("activities", city.geoname_id or city.city_code)
    eligible = [t for t in TEMPLATES if not (t.water and city.city_code in NO_WATER)]
    sights = _sights(city)
    count = max(5, min(20, 4 + city.cost_level + city.population // 700_000))
    tours = min(len(eligible), max(MIN_TOURS, count - len(sights)))
    picked = [eligible[i] for i in sorted(rng.sample(range(len(eligible)), tours))] + sights
    first_sight = len(picked) - len(sights)
    out = []
    used_ids: set[int] = set()
    for n, t in enumerate(picked):
        activity_id = rng.randint(1_000_000, 9_999_999)
        while activity_id in used_ids:
            activity_id = rng.randint(1_000_000, 9_999_999)
        if city.geoname_id:
            activity_id = GEO_ID_BASE + city.geoname_id * 100 + n
        used_ids.add(activity_id)
        lat, lon = offset_point(city.latitude, city.longitude, rng.uniform(0.1, 3.0), rng.uniform(0, 360))
        price = t.price_eur * COST_FACTOR[city.cost_level] * rng.uniform(0.85, 1.2)
        fill = {"c": city.name, "country": city.country}
        out.append(
            {
                "id": str(activity_id),
                "type": "activity",
                "name": t.name.format(**fill),
                "shortDescription": t.short.format(**fill),
                "description": t.long.format(**fill),
                "geoCode": {"latitude": f"{lat:.6f}", "longitude": f"{lon:.6f}"},
                # A city's sights are its best known places: rated 4.2 and up (OpenTripMap's 2 and 3).
                "rating": f"{rng.randint(42 if n >= first_sight else 38, 50) / 10:.1f}",
                "pictures": [f"https://images.sandbox.wayfarer.invalid/activities/{activity_id}.jpg"],
                "bookingLink": f"https://book.sandbox.wayfarer.invalid/activities/{activity_id}",
                "price": {"currencyCode": "EUR", "amount": money.fmt(price, "EUR")},
                "minimumDuration": _duration(t.hours),
                KINDS: t.kinds,
            }
        )
    return tuple(out)


def with_self(activity: dict[str, Any], base_url: str) -> dict[str, Any]:
    item: dict[str, Any] = {
        "id": activity["id"],
        "type": "activity",
        "self": {"href": f"{base_url}/v1/shopping/activities/{activity['id']}", "methods": ["GET"]},
    }
    item.update({k: v for k, v in activity.items() if k not in item and not k.startswith(PRIVATE)})
    return item


def find_activity(cat: Catalogue, activity_id: str) -> dict[str, Any] | None:
    if not activity_id.isdigit():
        return None
    cities: list[City] = cat.cities
    if len(activity_id) == len(str(GEO_ID_BASE)):
        city = cat.geo_city((int(activity_id) - GEO_ID_BASE) // 100)
        cities = [city] if city is not None else []
    for city in cities:
        for activity in activities_for_city(city):
            if activity["id"] == activity_id:
                return activity
    return None
