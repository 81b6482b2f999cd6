"""The aiohttp service."""
