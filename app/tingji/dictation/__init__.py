"""dictation"""
