package logorder

// bugs are switches that plant the mistakes paper 004 reports or invites,
// so that test suites can show they catch each one. All are off in real
// servers.
type bugs struct {
	latestValues bool // decide from the owners' newest values, not the values as of tid−1
	noInvalidate bool // the commit cache keeps a key's value when a skipped transaction may have written it
	earlyReads   bool // a restarted node advertises the tids it has logged and serves reads before it has applied them
	localRule    bool // node 0 decides by a rule of its own: it ignores the reads of keys it does not keep
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
		{"outcome decided from the newest values, not as of tid−1", func(b *bugs) { b.latestValues = true }},
		{"commit cache not invalidated on a skipped transaction", func(b *bugs) { b.noInvalidate = true }},
		{"restarted node serves reads before it has caught up", func(b *bugs) { b.earlyReads = true }},
		{"one node decides by a rule of its own", func(b *bugs) { b.localRule = true }},
	}
}
