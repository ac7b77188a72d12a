-- The date of a system's latest list in the rating_list view.
SELECT max(list_date) AS day FROM rating_list WHERE system = $system
