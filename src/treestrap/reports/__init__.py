"""Human-readable reports (ordinary Python): weight tables, piece-square plots and
learning-curve plots. Plotting imports matplotlib inside the functions that draw."""
