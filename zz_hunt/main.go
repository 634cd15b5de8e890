package main

import (
	"fmt"

	"github.com/replab/replab/harness/sweep"
	"github.com/replab/replab/shardtxn"
)

func main() {
	for _, b := range shardtxn.PlantedBugs() {
		for _, bank := range []bool{false, true} {
			cfg := sweep.TxnConfig()
			b.Plant(&cfg)
			found := 0
			for seed := int64(1); seed <= 20; seed++ {
				o, _ := sweep.TxnSpec{Name: "h", Config: cfg, Bank: bank}.Run(seed, "", nil)
				if !o.OK() {
					found = int(seed)
					break
				}
			}
			fmt.Printf("%-55s bank=%v first failing seed: %d\n", b.Name, bank, found)
		}
	}
}
