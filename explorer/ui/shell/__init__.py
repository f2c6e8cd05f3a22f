"""The main window and its glue: menus, the panel registry and stack, status, presenter mode, lessons, exports."""
