"""Fixed exchange rates (units per euro) so prices can be quoted in any catalogue currency, deterministically."""

from __future__ import annotations

from functools import lru_cache

import pycountry

RATES_PER_EUR: dict[str, float] = {
    "EUR": 1.0, "USD": 1.08, "GBP": 0.85, "CHF": 0.95, "JPY": 162.0, "CNY": 7.8, "HKD": 8.4, "SGD": 1.45,
    "AUD": 1.65, "NZD": 1.8, "CAD": 1.48, "SEK": 11.3, "NOK": 11.6, "DKK": 7.46, "ISK": 150.0, "PLN": 4.3,
    "CZK": 25.0, "HUF": 395.0, "TRY": 36.0, "RUB": 98.0, "KRW": 1480.0, "TWD": 35.0, "THB": 38.0, "MYR": 4.9,
    "IDR": 17500.0, "VND": 27500.0, "PHP": 62.0, "INR": 90.0, "NPR": 144.0, "LKR": 320.0, "AED": 3.97,
    "QAR": 3.93, "SAR": 4.05, "KWD": 0.33, "BHD": 0.41, "OMR": 0.42, "ILS": 4.0, "JOD": 0.77, "EGP": 53.0,
    "MAD": 10.8, "ZAR": 20.0, "KES": 140.0, "TZS": 2850.0, "NGN": 1650.0, "ETB": 130.0, "MXN": 19.5,
    "CUP": 26.0, "COP": 4400.0, "PEN": 4.05, "BRL": 6.0, "ARS": 1050.0, "CLP": 1010.0,
}  # fmt: skip


def supported(currency: str) -> bool:
    return currency.upper() in RATES_PER_EUR


def convert(amount_eur: float, currency: str) -> float:
    return amount_eur * RATES_PER_EUR[currency.upper()]


def to_eur(amount: float, currency: str) -> float:
    return amount / RATES_PER_EUR[currency.upper()]


def fmt(amount: float) -> str:
    """Amadeus writes amounts as strings with two decimals."""
    return f"{amount:.2f}"


@lru_cache(maxsize=128)
def currency_name(currency: str) -> str:
    """The dictionary name Amadeus uses: 'EURO', 'US DOLLAR', 'POUND STERLING'."""
    if currency == "EUR":
        return "EURO"
    found = pycountry.currencies.get(alpha_3=currency)
    return found.name.upper() if found else currency
