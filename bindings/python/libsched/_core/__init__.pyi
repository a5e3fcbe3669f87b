from . import kernel as kernel
from . import measure as measure
from . import run as run
from . import scenario as scenario
from . import system as system
from . import theory as theory
from . import weight as weight

__version__: str
