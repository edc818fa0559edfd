package srtslurm

import "strconv"

// serYAML is the ser.yaml of a disaggregated trtllm_serve job
// (NVIDIA/srt-slurm src/srtctl/frontends/trtllm_serve.py _build_ser,
// written with yaml.safe_dump(ser, sort_keys=False)): the prefill
// (context) and decode (generation) endpoint leaders' IP:HTTP port in
// launch order, hostname 0.0.0.0 and the frontend port, then
// frontend.ctx_router / gen_router as each list's router and
// frontend.server_config_extra merged on top (empty mappings are ignored,
// as Python's truthiness test does).
func (rd *renderer) serYAML(port string) string {
	servers := func(m mode, router *omap) *omap {
		var urls []any
		for _, e := range rd.eps {
			if e.mode == m {
				urls = append(urls, ip(e.procs[0].node)+":"+strconv.Itoa(e.procs[0].http))
			}
		}
		s := newMap()
		s.set("num_instances", int64(len(urls)), src{})
		s.set("urls", urls, src{})
		if router != nil && router.len() > 0 {
			s.set("router", deepCopy(router), src{})
		}
		return s
	}
	ser := newMap()
	ser.set("context_servers", servers(modePrefill, rd.c.ctxRouter), src{})
	ser.set("generation_servers", servers(modeDecode, rd.c.genRouter), src{})
	ser.set("hostname", "0.0.0.0", src{})
	p, _ := strconv.Atoi(port)
	ser.set("port", int64(p), src{})
	if x := rd.c.serExtra; x != nil {
		for _, e := range x.entries {
			ser.set(e.Key, deepCopy(e.Val), e.Src)
		}
	}
	return safeDumpOrdered(ser)
}
