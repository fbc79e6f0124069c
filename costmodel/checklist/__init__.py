"""The go/no-go checklist (pure logic): the item catalogue (:mod:`.items`), the answers file
(:mod:`.answers`), evidence from the analysis (:mod:`.evidence`) and the verdict (:mod:`.verdict`).

Every item is phrased so that ``yes`` is the favourable answer. Evidence gathered from the ``compare``,
``cost`` and ``fit`` results *proposes* an answer where the data can speak; a person's answer overrides
the proposal, and both are kept and shown. The verdict rules are in :mod:`costmodel.checklist.verdict`.
"""
from .answers import answers_template as answers_template
from .answers import answers_to_mapping as answers_to_mapping
from .answers import dump_answers as dump_answers
from .answers import load_answers as load_answers
from .answers import load_yaml_words as load_yaml_words
from .answers import parse_answers as parse_answers
from .answers import read_answers_file as read_answers_file
from .answers import save_answers as save_answers
from .evidence import MEASURED_ITEMS as MEASURED_ITEMS
from .evidence import PREDICTION_CONDITION as PREDICTION_CONDITION
from .evidence import Evidence as Evidence
from .evidence import gather_evidence as gather_evidence
from .items import ANSWERS as ANSWERS
from .items import CACHE_MIN_HEADROOM as CACHE_MIN_HEADROOM
from .items import COST_MATERIALITY_FRACTION as COST_MATERIALITY_FRACTION
from .items import DIP_MAX_LOSS as DIP_MAX_LOSS
from .items import ITEM_IDS as ITEM_IDS
from .items import ITEMS as ITEMS
from .items import LINK_HEADROOM_MAX_UTILISATION as LINK_HEADROOM_MAX_UTILISATION
from .items import MIN_HIT_RATIO as MIN_HIT_RATIO
from .items import MIN_REPETITIONS as MIN_REPETITIONS
from .items import SEVERITIES as SEVERITIES
from .items import VERDICTS as VERDICTS
from .items import WARMUP_MAX_SHARE as WARMUP_MAX_SHARE
from .items import Answer as Answer
from .items import Item as Item
from .items import get_item as get_item
from .verdict import Decision as Decision
from .verdict import ItemResult as ItemResult
from .verdict import decide as decide
from .verdict import evaluate as evaluate
from .verdict import note_problem as note_problem
