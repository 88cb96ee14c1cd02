"""Everything that touches the GPU: device, kernels, pipeline, modes, timed
rounds, the busy probe, one-off graph costs and device conditions."""
