"""Connect Four games between in-process players: player specs and the players (the
exact solver, its weakened versions, random moves, a search over a model), the game
loop with random openings, tournaments stored as chess tournaments are, and the
measurement against perfect play."""
