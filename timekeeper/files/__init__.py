"""Files a user names or timekeeper writes: safe reading, atomic writing, where outputs may go, the shipped data's folders, and quieting chatty libraries."""
