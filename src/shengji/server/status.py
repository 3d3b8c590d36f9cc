"""A table's status names (stored in the database, sent to clients)."""

WAITING = "waiting"  # seats are being filled
PLAYING = "playing"  # the game is on
FINISHED = "finished"  # a team passed A (RULES §9)
ERROR = "error"  # damaged: the engine failed or the stored log does not replay
ERROR_MESSAGE = "this table hit an internal error"
STORAGE_MESSAGE = ("the server cannot save this game right now (its storage is failing, "
                   "e.g. a full disk): the table is paused and goes on by itself once it can")
