package labrpc

import (
	"encoding/gob"
	"fmt"
	"io"
	"reflect"
)

// gob gives every type it encodes a number, process-wide, in the order
// types are first encoded, and writes it in one byte below 128, two below
// 256 and three below 65 536. The services encode commands, snapshots and
// persisted state with gob, and their sizes are what the network and the
// snapshot thresholds see; so a run's sizes, and through them its events,
// would depend on what else the process had encoded before it (another
// experiment of `labsim figures`, another test of the package), and a seed
// would not replay alike alone (`go test -run`) and among others. Using up
// the numbers below 256 when the process starts (a struct type of its own
// for each) makes every type's number three bytes long, whatever came
// first.
func init() {
	for i := range 256 {
		t := reflect.StructOf([]reflect.StructField{{Name: fmt.Sprintf("F%d", i), Type: reflect.TypeFor[int]()}})
		if err := gob.NewEncoder(io.Discard).Encode(reflect.New(t).Interface()); err != nil {
			panic(fmt.Sprintf("labrpc: using up gob's type numbers: %v", err))
		}
	}
}
