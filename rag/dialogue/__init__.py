"""The state of a conversation and what each message does to it: which tools to call with which
parameters, what to ask, and what the next message may answer or change."""
