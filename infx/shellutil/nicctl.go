package shellutil

import (
	"fmt"
	"strings"
)

// This file answers nicctl, the CLI of AMD's Pensando Pollara (ionic)
// NICs, whose installation and QoS configuration on a node are machine
// facts the runner table does not document (Facts.NICQoS). InferenceX's
// AMD multi-node job reads them twice: the pre-flight gate
// benchmarks/multi_node/amd_utils/helpers/rdma_check.sh (skipped without
// nicctl; otherwise DSCP classification, PFC covering the no-drop
// priorities and DCQCN enabled, or the job exits 1) and amd_utils/env.sh,
// which derives MORI_RDMA_TC = 4 × DSCP and MORI_RDMA_SL = the no-drop
// priority from `nicctl show qos` (else from the hostname). The answers
// are a FactChoice (ChoiceFor): nicctl not installed, or installed with
// one of NICQoSProfiles — representatives, not a proof, chosen so that a
// value made from the QoS differs between them.

// NICQoS is a NIC QoS configuration nicctl reports: traffic of DSCP
// value DSCP is classified into priority Priority, the one PFC no-drop
// priority; DCQCN is enabled on every RoCE device and answers congestion
// with CNPs of DSCP CNPDSCP.
type NICQoS struct {
	DSCP, Priority, CNPDSCP int
	// Firmware is the NIC firmware version `nicctl show version` prints.
	Firmware string
}

// NICQoSProfiles are the QoS configurations the nicctl choice tries
// (Facts.NICQoS 1 and 2). DSCP 24 and 26 are the two the InferenceX tree
// itself attributes to the fleet (amd_utils/env.sh's hostname fallback:
// MORI_RDMA_TC 96 = 4 × 24 on GPU*/smci355-ccs-aus* nodes, 104 = 4 × 26
// on mia1* nodes); the no-drop priorities 3 and 5 differ so that the
// service level made from them differs too; CNP DSCP 46 is the value a
// public DCQCN check of Pollara NICs expects; the firmware is the minimum
// amd_utils/helpers/rdma_check.sh recommends (AINIC_MIN_VER). Never
// written after initialization.
var NICQoSProfiles = []NICQoS{
	{DSCP: 24, Priority: 3, CNPDSCP: 46, Firmware: "1.117.5-a-45"},
	{DSCP: 26, Priority: 5, CNPDSCP: 46, Firmware: "1.117.5-a-45"},
}

// NICNone as Facts.NICQoS: nicctl is not installed on the node.
const NICNone = -1

// nicProfile is the QoS profile of f (Facts.NICQoS ≥ 1).
func nicProfile(f Facts) (NICQoS, bool) {
	if f.NICQoS < 1 || f.NICQoS > len(NICQoSProfiles) {
		return NICQoS{}, false
	}
	return NICQoSProfiles[f.NICQoS-1], true
}

// nicChoice is the FactChoice of nicctl on an AMD machine whose NICs are
// not documented.
func nicChoice(f Facts) FactChoice {
	ch := FactChoice{Fact: fmt.Sprintf("whether nicctl (AMD Pollara NIC CLI) is installed on the nodes of %s and the NIC QoS it reports (not published)", factsName(f)),
		Answers: []string{"nicctl is not installed"}}
	m := f
	m.NICQoS = NICNone
	ch.Machines = append(ch.Machines, m)
	for i, p := range NICQoSProfiles {
		ch.Answers = append(ch.Answers, fmt.Sprintf("nicctl reports DSCP %d on no-drop priority %d", p.DSCP, p.Priority))
		m := f
		m.NICQoS = i + 1
		ch.Machines = append(ch.Machines, m)
	}
	return ch
}

// runNicctl answers `nicctl show qos`, `nicctl show dcqcn` and `nicctl
// show version firmware|host-software` for the profile of Facts.NICQoS,
// one NIC per GPU, in the layout of nicctl's own output (the `show qos`
// block of a captured Pollara output: "NIC  : <id>  (<bdf>)", "Port :
// <id>", "Classification type : DSCP", the DSCP-to-priority lines "DSCP
// : <values> ==> priority : <p>", "PFC priority bitmap : 0x…", "PFC
// no-drop priorities : <p>"; `show dcqcn`: a "ROCE device" block per NIC
// with "Status : Enabled" and "DSCP value used for CNP : <d>"). Without
// nicctl: command not found. Anything else nicctl prints is not
// documented.
func runNicctl(c *call) (int, error) {
	f := c.facts
	if f.NICQoS == NICNone {
		return c.notInstalled()
	}
	p, ok := nicProfile(f)
	if !ok {
		return 0, unsup("whether nicctl is installed on %s, and its NICs, are not documented", factsName(f))
	}
	if f.GPUCount <= 0 {
		return 0, unsup("GPU count not documented")
	}
	args := strings.Join(c.args, " ")
	var b strings.Builder
	nic := func(i int) {
		fmt.Fprintf(&b, "NIC  : 42424242-4c32-3533-3330-3131300000%02d  (0000:%02x:00.0)\n\n", i, 0x06+0x10*i)
	}
	switch args {
	case "show qos":
		others := fmt.Sprintf("0-%d, %d-63", p.DSCP-1, p.DSCP+1)
		for i := 0; i < f.GPUCount; i++ {
			nic(i)
			fmt.Fprintf(&b, "Port : 0490814a-6c40-4242-4242-0000110100%02d\n\n", i)
			b.WriteString("  Classification type         : DSCP\n\n")
			b.WriteString("  DSCP-to-priority :\n")
			fmt.Fprintf(&b, "    DSCP bitmap               : 0x%016x ==> priority : %d\n", uint64(1)<<p.DSCP, p.Priority)
			fmt.Fprintf(&b, "    DSCP                      : %d ==> priority : %d\n", p.DSCP, p.Priority)
			fmt.Fprintf(&b, "    DSCP bitmap               : 0x%016x ==> priority : 0\n", ^(uint64(1) << p.DSCP))
			fmt.Fprintf(&b, "    DSCP                      : %s ==> priority : 0\n\n", others)
			b.WriteString("  PFC :\n")
			fmt.Fprintf(&b, "    PFC priority bitmap       : 0x%x\n", 1<<p.Priority)
			fmt.Fprintf(&b, "    PFC no-drop priorities    : %d\n\n", p.Priority)
		}
	case "show dcqcn":
		for i := 0; i < f.GPUCount; i++ {
			nic(i)
			fmt.Fprintf(&b, "  ROCE device                 : ionic_%d\n", i)
			b.WriteString("    Status                    : Enabled\n")
			fmt.Fprintf(&b, "    DSCP value used for CNP   : %d\n\n", p.CNPDSCP)
		}
	case "show version firmware":
		for i := 0; i < f.GPUCount; i++ {
			nic(i)
			fmt.Fprintf(&b, "  Firmware version            : %s\n\n", p.Firmware)
		}
	case "show version host-software":
		fmt.Fprintf(&b, "nicctl                        : %s\n", p.Firmware)
	default:
		return 0, unsup("nicctl %s (only show qos, show dcqcn and show version are modelled)", args)
	}
	c.out.WriteString(b.String())
	return 0, nil
}
