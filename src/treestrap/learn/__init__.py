"""Learning from search (ordinary Python over the compiled searches).

One module per update rule of Veness et al. (2009, Table 1) and Baxter et al.
(TD-Leaf(lambda)); all share :class:`treestrap.learn.base.Algorithm`. Updates are
stochastic gradient steps on the squared error with the search value held constant.
"""
