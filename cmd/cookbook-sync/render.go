package main

import "github.com/spf13/cobra"

// newRenderCmd: placeholder until its owner implements it.
func newRenderCmd() *cobra.Command {
	return &cobra.Command{Use: "render", Short: "(not yet implemented)", Hidden: true}
}
