package main

import "github.com/spf13/cobra"

// subcommands lists every subcommand; each lives in its own file.
func subcommands() []*cobra.Command {
	return []*cobra.Command{
		newDecodeCmd(),
		newRenderCmd(),
		newCoverageCmd(),
		newSignoffCmd(),
		newDriftCmd(),
		newRecipesCmd(),
		newUpstreamCmd(),
		newPRCmd(),
		newGenerateCmd(),
	}
}
