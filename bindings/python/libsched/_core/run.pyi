import os
from typing import Optional, Union

class ScenarioError(ValueError):
    field: str
    reason: str
    origin: str

def run_scenario_text(
    toml: str,
    repetitions: Optional[int] = None,
    seed: Optional[int] = None,
    origin: str = "<string>",
) -> tuple[str, list[str]]: ...
def read_scenario_file(path: Union[str, os.PathLike[str]]) -> str: ...
def nearest_name(word: str, candidates: list[str]) -> Optional[str]: ...
def cli_main(args: list[str]) -> int: ...
