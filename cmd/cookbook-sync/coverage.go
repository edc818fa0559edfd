package main

import "github.com/spf13/cobra"

// newCoverageCmd: placeholder until its owner implements it.
func newCoverageCmd() *cobra.Command {
	return &cobra.Command{Use: "coverage", Short: "(not yet implemented)", Hidden: true}
}
