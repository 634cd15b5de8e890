package frangipani

// bugs are switches that plant the mistakes a lease/lock cache can make
// (the Frangipani report's among them), so that test suites can show they
// catch each one. All are off in real deployments.
type bugs struct {
	serveExpired     bool // the clerk serves from its cache after its lease ran out
	noDriftMargin    bool // the clerk's lease is the server's, with no margin for drift
	grantBeforeFlush bool // a revoked lock goes to the waiter at once, before its holder flushes
	dropDirty        bool // a revoked holder releases without sending its dirty value
}

// A PlantedBug is a known mistake that can be put back into a Config, so
// that a test suite can show that it catches it.
type PlantedBug struct {
	Name  string // what goes wrong, in a few words
	plant func(*bugs)
}

// Plant switches the bug on in c.
func (b PlantedBug) Plant(c *Config) { b.plant(&c.bugs) }

// PlantedBugs returns every bug that can be planted, in a fixed order.
func PlantedBugs() []PlantedBug {
	return []PlantedBug{
		{"clerk serves after its lease ran out", func(b *bugs) { b.serveExpired = true }},
		{"clerk's lease has no margin for clock drift", func(b *bugs) { b.noDriftMargin = true }},
		{"lock granted before the previous holder's flush is applied", func(b *bugs) { b.grantBeforeFlush = true }},
		{"dirty values dropped on revoke", func(b *bugs) { b.dropDirty = true }},
	}
}
