"""Training the §11.7 model: config, the Trainer (an iterator of events), optimiser, devices, DDP, checkpoints."""
