import time

#: When this process started (this package is imported as Django sets up): /healthz gives a
#: fresh process time for the first periodic sweep before it counts a missing one as a dead
#: clock.
STARTED_AT = time.time()
