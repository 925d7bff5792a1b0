"""Seed 004 (Kaplan, Mansour, Matias, Stemmer): the private Set Cover Learner (SPEC 9.1-9.2)."""
