"""Prices: the dated catalog, how the providers bill, and getting the providers' own price files.

- ``catalog``: the dated price tables (``data/prices/*.csv``), rows, lookup with region globs and tiers,
  staleness warnings, closest-match suggestions;
- ``billing``: price rows as the cost model uses them (billed byte units, tiers, ``prices_used`` entries);
- ``importers``: ``costmodel prices import`` (AWS offer JSON/CSV, GCP SKU pages, Azure Retail pages ->
  catalog CSVs); ``fetch``: ``costmodel prices fetch`` (download those files).

The face names the catalog's API, as ``costmodel.prices`` always did (``from costmodel.prices import
load_prices``).
"""
from .catalog import ALL_COLUMNS as ALL_COLUMNS
from .catalog import ITEM_ALIASES as ITEM_ALIASES
from .catalog import PRICES_DIR as PRICES_DIR
from .catalog import PriceRow as PriceRow
from .catalog import PriceTable as PriceTable
from .catalog import age_warning as age_warning
from .catalog import bytes_per_unit as bytes_per_unit
from .catalog import load_prices as load_prices
from .catalog import parse_as_of as parse_as_of
from .catalog import read_price_csv as read_price_csv
