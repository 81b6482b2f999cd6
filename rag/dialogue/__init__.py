"""The conversation: its state and what each message does to it (trip.py, plan.py, followup.py,
forecast.py): which tools to call with which parameters, what to ask, and what the next message may
answer or change. Pure: no aiohttp or Qdrant."""
