package sweep

// lockDuplicates is frangipani's scenario of duplicated requests on keys
// that move from clerk to clerk: the lock service performs the operation
// of an acquire whose key another clerk used last, so a duplicate that
// arrives after the answer must be recognised, a read's as a write's, or
// it is granted a lock its clerk never learns of. Clerks cut off and
// leaders killed add retries and new leaders to the duplicates.
func lockDuplicates() Scenario {
	sp := LockSpec{Name: "locks-duplicates", Config: LockConfig(), Clients: 5, Keys: 2, Unreliable: true, Duplicate: 0.1, Isolate: true, KillLeaders: true}
	sp.Description = "Frangipani lease/lock cache (3 lock servers, 5 caching clerks taking turns on 2 keys, unreliable network, snapshots) with a tenth of all requests delivered twice, " +
		"so that an acquire whose operation the lock service performs (its key was another clerk's last) arrives again after it was answered; " +
		"meanwhile a random clerk is cut off from the lock service for up to two leases, again and again, and the lock service's leader is killed every 1–3 s and restarted within a second; porcupine at the end."
	return sp.Scenario()
}
