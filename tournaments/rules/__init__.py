"""The tournament rules as pure code: structure and clock, payouts and places, ICM and
deals, cancellation, seating and balancing. No Django, nothing of the project but
``poker.engine``: the tournament director (``tournaments`` services) feeds it state and
carries out what it decides."""
