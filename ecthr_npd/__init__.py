"""ECtHR-NPD: non-pecuniary damage awards of the European Court of Human Rights."""
