package logorder

import "fmt"

// Slots is the size of the key space's numbering: a key's slot is its
// first two bytes as a number in 0…Slots−1 (paper 004, §3.2).
const Slots = 1 << 15

// Limits on what a transaction may carry (paper 004: keys are printable
// ASCII of up to 127 characters).
const (
	MaxKey    = 127
	MaxValue  = 64 << 10 // bytes in a value
	MaxKeys   = 1024     // reads or writes in one transaction
	maxPrefix = 0x7f     // the largest printable byte, so a slot fits in 15 bits
)

// SlotOf returns key's slot: its first byte times 256 plus its second (0
// if it has one byte). A valid key (CheckKey) is printable ASCII, so its
// slot is below Slots.
func SlotOf(key string) int {
	s := 0
	if len(key) > 0 {
		s = int(key[0]) << 8
	}
	if len(key) > 1 {
		s |= int(key[1])
	}
	return s
}

// CheckKey returns an error naming what is wrong with key, or nil.
func CheckKey(key string) error {
	switch {
	case key == "":
		return fmt.Errorf("logorder: an empty key")
	case len(key) > MaxKey:
		return fmt.Errorf("logorder: key %.20q… of %d bytes (at most %d)", key, len(key), MaxKey)
	}
	for i := range len(key) {
		if key[i] < ' ' || key[i] >= maxPrefix {
			return fmt.Errorf("logorder: key %q: byte %d (%#x) is not printable ASCII", key, i, key[i])
		}
	}
	return nil
}

// A Layout places the slots on the nodes: the slot space is cut into
// Ranges equal ranges, and range i is kept by Replicas nodes, i mod Nodes
// and the ones after it (paper 004's static placement: evenly spread
// ranges, and replication by giving a range to several nodes).
type Layout struct {
	Nodes    int
	Replicas int
	Ranges   int
}

// DefaultLayout cuts the slots into 128 ranges, one per first byte of a
// key, so keys that differ in their first byte spread round the nodes.
func DefaultLayout(nodes, replicas int) Layout {
	return Layout{Nodes: nodes, Replicas: replicas, Ranges: 128}
}

// Validate returns an error naming the first setting that cannot work.
func (l Layout) Validate() error {
	switch {
	case l.Nodes < 1:
		return fmt.Errorf("logorder: a layout of %d nodes", l.Nodes)
	case l.Replicas < 1 || l.Replicas > l.Nodes:
		return fmt.Errorf("logorder: replication factor %d is not in 1…%d (the nodes)", l.Replicas, l.Nodes)
	case l.Ranges < 1 || l.Ranges > Slots:
		return fmt.Errorf("logorder: %d ranges is not in 1…%d", l.Ranges, Slots)
	}
	return nil
}

// Owners returns the nodes that keep key, the range's first node first.
func (l Layout) Owners(key string) []int {
	r := SlotOf(key) * l.Ranges / Slots
	owners := make([]int, l.Replicas)
	for j := range owners {
		owners[j] = (r + j) % l.Nodes
	}
	return owners
}

// Owns reports whether node keeps key.
func (l Layout) Owns(node int, key string) bool {
	r := SlotOf(key) * l.Ranges / Slots
	return (node-r%l.Nodes+l.Nodes)%l.Nodes < l.Replicas
}
