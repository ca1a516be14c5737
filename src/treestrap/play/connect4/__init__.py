"""Connect Four's players measured against perfect play: the solved reference
positions, the cached exact solver, games from random openings or from the empty board
against it, and their reports. (Its player specs and tournaments are the game's own:
:mod:`treestrap.games.connect4_players`, :mod:`treestrap.games.connect4_tournament`.)"""
