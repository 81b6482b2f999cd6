"""Fixed exchange rates (units per euro) so prices can be quoted in any catalogue currency, deterministically,
and amounts in each currency's minor units, as the real APIs send them: 21400 yen, 12.50 euros, 3.250 dinars.
"""

from __future__ import annotations

from functools import lru_cache

import pycountry
from babel.numbers import get_currency_precision

RATES_PER_EUR: dict[str, float] = {
    "EUR": 1.0, "USD": 1.08, "GBP": 0.85, "CHF": 0.95, "JPY": 162.0, "CNY": 7.8, "HKD": 8.4, "SGD": 1.45,
    "AUD": 1.65, "NZD": 1.8, "CAD": 1.48, "SEK": 11.3, "NOK": 11.6, "DKK": 7.46, "ISK": 150.0, "PLN": 4.3,
    "CZK": 25.0, "HUF": 395.0, "TRY": 36.0, "RUB": 98.0, "KRW": 1480.0, "TWD": 35.0, "THB": 38.0, "MYR": 4.9,
    "IDR": 17500.0, "VND": 27500.0, "PHP": 62.0, "INR": 90.0, "NPR": 144.0, "LKR": 320.0, "AED": 3.97,
    "QAR": 3.93, "SAR": 4.05, "KWD": 0.33, "BHD": 0.41, "OMR": 0.42, "ILS": 4.0, "JOD": 0.77, "EGP": 53.0,
    "MAD": 10.8, "ZAR": 20.0, "KES": 140.0, "TZS": 2850.0, "NGN": 1650.0, "ETB": 130.0, "MXN": 19.5,
    "CUP": 26.0, "COP": 4400.0, "PEN": 4.05, "BRL": 6.0, "ARS": 1050.0, "CLP": 1010.0,
    # Other countries' currencies, so a city anywhere can quote in its own.
    "RON": 4.97, "RSD": 117.0, "UAH": 45.0, "BYN": 3.5, "MDL": 19.3, "GEL": 2.95, "AMD": 420.0,
    "AZN": 1.84, "KZT": 540.0, "UZS": 13800.0, "PKR": 300.0, "BDT": 130.0, "MMK": 2270.0, "KHR": 4400.0,
    "LAK": 23500.0, "MNT": 3700.0, "IRR": 45500.0, "IQD": 1420.0, "DZD": 145.0, "TND": 3.35, "XOF": 655.957,
    "XAF": 655.957, "GHS": 16.0, "UGX": 4000.0, "RWF": 1480.0, "ZMW": 29.0, "MZN": 69.0, "AOA": 990.0,
    "MGA": 5000.0, "NAD": 20.0, "BWP": 14.7, "MUR": 50.0, "DOP": 66.0, "GTQ": 8.4, "HNL": 27.0, "NIO": 40.0,
    "CRC": 550.0, "JMD": 170.0, "TTD": 7.3, "BOB": 7.5, "PYG": 8400.0, "UYU": 45.0, "FJD": 2.45, "XPF": 119.33,
}  # fmt: skip


def supported(currency: str) -> bool:
    return currency.upper() in RATES_PER_EUR


def convert(amount_eur: float, currency: str) -> float:
    return amount_eur * RATES_PER_EUR[currency.upper()]


def to_eur(amount: float, currency: str) -> float:
    return amount / RATES_PER_EUR[currency.upper()]


@lru_cache(maxsize=256)
def minor_units(currency: str) -> int:
    """Digits after the decimal point (CLDR's, through babel): 0 for JPY or KRW, 3 for KWD or BHD, mostly 2."""
    return get_currency_precision(currency.upper())


def round_minor(amount: float, currency: str) -> float:
    """The amount rounded to what the currency can express: whole yen, cents, fils."""
    digits = minor_units(currency)
    return round(amount) if digits == 0 else round(amount, digits)


def fmt(amount: float, currency: str) -> str:
    """An amount as the APIs write it in JSON strings: '21400' yen, '12.50' euros, '3.250' dinars."""
    return f"{amount:.{minor_units(currency)}f}"


@lru_cache(maxsize=128)
def currency_name(currency: str) -> str:
    """The dictionary name Amadeus uses: 'EURO', 'US DOLLAR', 'POUND STERLING'."""
    if currency == "EUR":
        return "EURO"
    found = pycountry.currencies.get(alpha_3=currency)
    return found.name.upper() if found else currency
