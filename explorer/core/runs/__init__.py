"""Run directories of §11.7 training runs: format, writer, follower, replay, and the training process."""
