"""Learners of ``seeds/002`` (Beimel-Nissim-Stemmer): private semi-supervised and active learning."""

from .active import PrivateActiveLearner
from .generic import GenericLearner

__all__ = ["GenericLearner", "PrivateActiveLearner"]
