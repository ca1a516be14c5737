"""The games the learning code plays: the game contract and each game's model."""
