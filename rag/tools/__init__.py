"""The travel tools as the service knows them: one declaration a tool (``ToolSpec``), and the
catalogue built from them (``ToolCatalogue``). The providers behind them live in ``connectors``."""
