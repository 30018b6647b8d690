"""pbem: play-by-email adjudication with signed moves and dice nobody can bias."""
