module github.com/replab/replab

go 1.24.0

require (
	github.com/anishathalye/porcupine v1.3.1
	github.com/stretchr/testify v1.12.1
)

require go.yaml.in/yaml/v3 v3.0.5 // indirect
