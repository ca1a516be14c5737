"""A training run spread over processes or machines: self-play actors and one learner.

Actors (:mod:`.actor`) play games with the newest weights they were sent, run the
searches and learn from them locally as a one-process run does, and ship what the
learning rule produced: one sparse update record per search (:mod:`.updates`). The
learner (:mod:`.learner`) applies the records in the order games arrive, writes the
run's files exactly as :mod:`treestrap.training.run` does, and publishes its weights to
the actors every K games. A network run's actors (``--model``) ship each search's
replay samples instead, and the learner takes Algorithm 7's mini-batch steps itself.
Backends carry jobs and games between them: local processes (:mod:`.local`) or Ray
actors (:mod:`.ray_backend`); tournament games run as Ray tasks through
:mod:`.ray_games`.
"""
