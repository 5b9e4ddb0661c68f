"""Supervised refinement of the phase nets on deeper targets: the net learns its own n-ply values.

Two steps, each resumable:

- :func:`training.supervised.data.generate` plays batched 0-ply self-play with a weights file and
  keeps a random share of the positions met (side on roll, before rolling) that a phase net
  evaluates (contact and race; the positions the bearoff databases cover exactly and finished
  games are left out). Each kept position is labelled with the same evaluator's ``plies``-ply
  probabilities (:func:`nets.lookahead.evaluate_plies`). The data go to a folder as numbered
  shards (:mod:`training.supervised.shards`), each written atomically and derived from
  ``(seed, shard number)`` alone, so a stopped run resumes at the first missing shard and any
  shard can be rebuilt bit for bit.
- :func:`training.supervised.fit.fit` starts from a weights file (optionally widened without
  changing its function) and minimises the error of each phase net's five outputs against the
  targets (:mod:`training.supervised.losses`) with Adam, a validation set split by game, and
  early stopping on the validation loss. The candidate is a plain weights file whose run record
  carries the data's provenance and every setting, so ``jumpgammon weights promote`` accepts it.

Generation and the shards are torch-free; the losses and the fit use torch.
"""
