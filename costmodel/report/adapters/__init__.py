"""Adapters of the report's dependencies: papermill (with nbclient) behind one module, its tested versions in
``TESTED`` (see :mod:`costmodel.foundation.adapters`, which holds the rule and the floor-0 ones)."""
