"""Translations: Qt translators for English and 简体中文, installed and switched live."""
