"""Declarative bundle recipes: reading them (:mod:`.model`), checking their sources (:mod:`.sources`),
building their bundles (:mod:`.build`) and writing new ones (:mod:`.new_recipe`)."""

from ..errors import MissingSourceError, RecipeError
from .build import RecipeBuild, build_recipe, is_up_to_date, recipe_output, recipe_spec
from .model import (
    RECIPE_FORMAT,
    RECIPE_FORMAT_VERSION,
    SOURCE_KINDS,
    WORDNET_FILES,
    Recipe,
    RecipeSource,
    load_recipe,
    recipe_files,
    write_recipe,
)
from .sources import CheckedSource, check_sources, source_sha256, wordnet_digest

__all__ = [
    "RECIPE_FORMAT",
    "RECIPE_FORMAT_VERSION",
    "SOURCE_KINDS",
    "WORDNET_FILES",
    "RecipeError",
    "MissingSourceError",
    "RecipeSource",
    "Recipe",
    "CheckedSource",
    "RecipeBuild",
    "load_recipe",
    "recipe_files",
    "check_sources",
    "source_sha256",
    "wordnet_digest",
    "build_recipe",
    "recipe_spec",
    "recipe_output",
    "is_up_to_date",
    "write_recipe",
]
