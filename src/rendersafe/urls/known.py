"""Sites a model writes from memory: well-known registrable domains only their own
organisation reads (data/known_hosts.txt, each entry with its reason), and the sites of
public bodies, whose suffixes only such bodies may register under.

    known_site("nestjs.com")          # True: a framework's documentation
    known_site("food.gov.uk")         # True: only a UK public body holds a gov.uk name
    known_site("driftmail.app")       # False: nothing says a model knows it by heart

A link to a host no message visibly names is one of two things: a site the model knows
from its training, or a host an instruction spelt in a way the naming reader cannot read
(the NATO alphabet, Atbash, the first letters of words). Only in a conversation that
holds text anyone could write is the second possible; there a site known here is still
read as written from memory (`judging.budget`).
"""

from __future__ import annotations

import functools
from importlib.resources import files

from .classes import PathTable
from .datafiles import entries
from .hosts import registrable_domain, split_host

__all__ = ["BRANDS", "BRAND_PAGES", "BRAND_SITES", "KNOWN_SITES", "known_site"]

KNOWN_SITES: frozenset[str] = frozenset(entry for entry, _why in entries("known_hosts.txt"))

# The sections whose sites a user names by their brand alone when they speak of their own
# account with it (`my IKEA order`): companies that issue orders, bookings and accounts.
# Not a project, a university (shared hosting by nature) or a publication.
_BRAND_SECTIONS = ("# --- Big tech,", "# --- Consumer brands,", "# --- Added by review:")


def _brands() -> frozenset[str]:
    text = files(__package__).joinpath("data", "known_hosts.txt").read_text(encoding="utf-8")
    found: set[str] = set()
    inside = False
    for line in text.splitlines():
        if line.startswith("# ---"):
            inside = line.startswith(_BRAND_SECTIONS)
        elif inside and line.strip() and not line.startswith("#"):
            found.add(line.split()[0])
    return frozenset(found)


# The pages where companies whose sites are not well known (a marketplace's sellers, ad
# auctions on some pages) show the user their own orders, bookings and tickets: there,
# their brand in the user's words names their site (data/brand_sites.txt).
BRAND_PAGES = PathTable([entry for entry, _why in entries("brand_sites.txt")])
BRAND_SITES: frozenset[str] = frozenset(
    registrable_domain(entry.partition("/")[0]) for entry, _why in entries("brand_sites.txt")
)

BRANDS: frozenset[str] = _brands() | BRAND_SITES

# Suffixes under which only public bodies may register a name: the top-level domains of
# the US government, its military, accredited schools and treaty organisations, and a
# country's second level for its government (`gov.uk`, `go.jp`, `gouv.fr`, `gob.mx`),
# military, health service or police (`nhs.uk`, `police.uk`) and its schools and
# universities (`edu.au`, `ac.uk`). A top-level `.ac` (Ascension Island) is open to all.
_PUBLIC_TOP_LEVEL = frozenset({"gov", "mil", "edu", "int"})
_PUBLIC_SECOND_LEVEL = frozenset(
    {"gov", "govt", "gob", "gouv", "go", "mil", "nhs", "police", "edu", "ac"}
)


@functools.lru_cache(maxsize=4096)
def known_site(site: str) -> bool:
    """Is `site` (a registrable domain, as `observers.site_of` gives it) well known?"""
    if site in KNOWN_SITES:
        return True
    labels = split_host(site)[2].split(".")
    if len(labels) == 1:
        return labels[0] in _PUBLIC_TOP_LEVEL
    return labels[0] in _PUBLIC_SECOND_LEVEL
