package main

import "github.com/spf13/cobra"

// newDecodeCmd: placeholder until its owner implements it.
func newDecodeCmd() *cobra.Command {
	return &cobra.Command{Use: "decode", Short: "(not yet implemented)", Hidden: true}
}
